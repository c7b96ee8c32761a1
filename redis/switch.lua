-- Makes a freshly built version the active one, unless the active version is further on: then the new
-- one is dropped, but for an active version at the position the caller found to hold another log's rows,
-- which is replaced, its final standings dropped with it. The old version's keys expire after a while, the new one's lose the expiry they had
-- while being built (so that an abandoned build leaves nothing behind).
--
-- KEYS[1]  the active pointer, <base>:active
-- ARGV     base, new version, seconds the old version's keys live on, message, the position of another
--          log's version to replace (0: none), then per view its name and number of rows
-- Returns  1 switched, 0 dropped (the active version is at a later position), -1 the build lost keys (they
--          expired, or Redis lost them: a flush, a restart or a failover in the middle of the build).
local base, version = ARGV[1], ARGV[2]
local nb = base .. ':v' .. version
local members = redis.call('SMEMBERS', nb .. ':keys')
local expired = redis.call('EXISTS', nb .. ':meta') == 0
-- Keys written again after a loss exist, with part of the rows: the counts tell.
for j = 6, #ARGV, 2 do
	local vk, n = nb .. ':' .. ARGV[j], tonumber(ARGV[j + 1])
	if redis.call('ZCARD', vk) ~= n or redis.call('HLEN', vk .. ':rows') ~= n then
		expired = true
	end
end
for _, k in ipairs(members) do
	if redis.call('PERSIST', k) == 0 and redis.call('EXISTS', k) == 0 then
		expired = true
	end
end
local drop = function()
	for _, k in ipairs(members) do
		redis.call('UNLINK', k)
	end
	redis.call('UNLINK', nb .. ':keys')
end
if expired then
	drop()
	return -1
end
redis.call('PERSIST', nb .. ':keys')

local cur = redis.call('GET', KEYS[1])
if cur then
	local ob = base .. ':v' .. cur
	local pos = tonumber(redis.call('HGET', ob .. ':meta', 'pos')) or 0
	local replace = tonumber(ARGV[5])
	if replace > 0 and pos == replace then
		redis.call('DEL', base .. ':final')
	elseif tonumber(redis.call('HGET', nb .. ':meta', 'pos')) < pos then
		drop()
		return 0
	end
	for _, k in ipairs(redis.call('SMEMBERS', ob .. ':keys')) do
		redis.call('EXPIRE', k, ARGV[3])
	end
	redis.call('EXPIRE', ob .. ':keys', ARGV[3])
end
redis.call('SET', KEYS[1], version)
redis.call('PUBLISH', base, ARGV[4])
return 1
