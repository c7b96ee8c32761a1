-- Returns the position of a contest's projection: its active version's, or 0 when it has none, or one of a
-- layout version other than the caller's (which must then rebuild it).
--
-- KEYS[1]  the active pointer, <base>:active
-- ARGV     base, the caller's layout version (what its layouts' names end with)
local active = redis.call('GET', KEYS[1])
if not active then
	return 0
end
local m = redis.call('HMGET', ARGV[1] .. ':v' .. active .. ':meta', 'pos', 'layout')
local layout, version = m[2] or '', ARGV[2]
if string.sub(layout, -#version) ~= version then
	return 0
end
return tonumber(m[1]) or 0
