-- Returns the position of a contest's projection: its active version's, or 0 when it has none.
--
-- KEYS[1]  the active pointer, <base>:active
-- ARGV     base
local active = redis.call('GET', KEYS[1])
if not active then
	return 0
end
return tonumber(redis.call('HGET', ARGV[1] .. ':v' .. active .. ':meta', 'pos')) or 0
