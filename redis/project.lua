-- Applies one update to the active version of a contest's projection. Strings
-- only: every score and row was encoded by the caller (project.go), and nothing is decoded here.
--
-- KEYS[1]  the active pointer, <base>:active
-- ARGV     base, pos, after (the position the sender knows the projection reached: one behind it lost what it
--          held), layout, problems, message, number of views, per view its name and seq, number of
--          segments, then per segment: view, number
--          of rows n, of groups, of removed teams; n score/member pairs (the ZADD to the view), n team/row
--          pairs (the HSET of the rows); per group its id, its number of rows k and k score/member pairs; the
--          removed team ids.
-- Returns  1 applied, 0 not past the projection's position, -1 no projection (or one that went back behind
--          after), -2 another layout.
local base = ARGV[1]
local active = redis.call('GET', KEYS[1])
if not active then
	return -1
end
local vb = base .. ':v' .. active
local meta = vb .. ':meta'
local m = redis.call('HMGET', meta, 'pos', 'layout', 'problems')
local at = tonumber(m[1]) or 0
if at >= tonumber(ARGV[2]) then
	return 0
end
if at < tonumber(ARGV[3]) then
	return -1
end
if m[2] ~= ARGV[4] then
	return -2
end
local keys = vb .. ':keys'

-- groupsOf returns the groups of a member: what follows its name and team id.
local groupsOf = function(member)
	return string.gmatch(string.match(member, '^[^%z]*%z[^%z]*%z(.*)$') or '', '[^%z]+')
end
-- call calls a variadic command with ARGV[from..to], in pieces that Lua's stack takes, and sums the replies.
local call = function(cmd, key, from, to)
	local sum = 0
	for j = from, to, 4000 do
		sum = sum + redis.call(cmd, key, unpack(ARGV, j, math.min(j + 3999, to)))
	end
	return sum
end

local nviews = tonumber(ARGV[7])
local i = 8 + 2 * nviews
local nsegments = tonumber(ARGV[i])
i = i + 1
for _ = 1, nsegments do
	local vk = vb .. ':' .. ARGV[i]
	local gk, rk, mk = vk .. ':g:', vk .. ':rows', vk .. ':members'
	local nrows, ngroups, nremoved = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
	local scored, rows = i + 4, i + 4 + 2 * nrows
	i = rows + 2 * nrows
	if nrows > 0 and call('ZADD', vk, scored, rows - 1) > 0 then
		-- New members: teams new to the view, or renamed or regrouped, whose old members leave.
		redis.call('SADD', keys, vk, rk, mk)
		for j = 0, nrows - 1 do
			local team, member = ARGV[rows + 2 * j], ARGV[scored + 2 * j + 1]
			local old = redis.call('HGET', mk, team)
			if old ~= member then
				if old then
					redis.call('ZREM', vk, old)
					for g in groupsOf(old) do
						redis.call('ZREM', gk .. g, old)
					end
				end
				for g in groupsOf(member) do
					redis.call('SADD', keys, gk .. g)
				end
				redis.call('HSET', mk, team, member)
			end
		end
	end
	for _ = 1, ngroups do
		local k = tonumber(ARGV[i + 1])
		call('ZADD', gk .. ARGV[i], i + 2, i + 1 + 2 * k)
		i = i + 2 + 2 * k
	end
	if nrows > 0 then
		call('HSET', rk, rows, rows + 2 * nrows - 1)
	end
	for _ = 1, nremoved do
		local team = ARGV[i]
		i = i + 1
		local old = redis.call('HGET', mk, team)
		if old then
			redis.call('ZREM', vk, old)
			for g in groupsOf(old) do
				redis.call('ZREM', gk .. g, old)
			end
			redis.call('HDEL', mk, team)
			redis.call('HDEL', rk, team)
		end
	end
end
local set = { 'pos', ARGV[2] }
for j = 8, 7 + 2 * nviews, 2 do
	set[#set + 1] = 'seq:' .. ARGV[j]
	set[#set + 1] = ARGV[j + 1]
end
if m[3] ~= ARGV[5] then
	set[#set + 1] = 'problems'
	set[#set + 1] = ARGV[5]
end
redis.call('HSET', meta, unpack(set))
redis.call('PUBLISH', base, ARGV[6])
return 1
