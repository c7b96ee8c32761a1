-- Reads a page of a view (or of a group of it) from the active version, with the view's seq, in one step:
-- rows and seq always match.
--
-- KEYS[1]  the active pointer, <base>:active
-- ARGV     base, view, group ("" for the whole view), offset, limit (negative: all)
-- Returns  nil when the contest has no projection, else {pos, seq, problems, total, rank of the first row,
--          {member, score, ...}, {the row of each member}}.
local active = redis.call('GET', KEYS[1])
if not active then
	return nil
end
local vb = ARGV[1] .. ':v' .. active
local view = ARGV[2]
local meta = redis.call('HMGET', vb .. ':meta', 'pos', 'seq:' .. view, 'problems')
local set = vb .. ':' .. view
if ARGV[3] ~= '' then
	set = set .. ':g:' .. ARGV[3]
end
local total = redis.call('ZCARD', set)
local offset, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
local page = {}
if limit ~= 0 and offset < total then
	local stop = -1
	if limit > 0 then
		stop = offset + limit - 1
	end
	page = redis.call('ZRANGE', set, offset, stop, 'WITHSCORES')
end
local first = 0
local rows = {}
if #page > 0 then
	first = 1 + redis.call('ZCOUNT', set, '-inf', '(' .. page[2])
	local teams = {}
	for j = 1, #page, 2 do
		-- A member is name, NUL, team id, NUL, groups.
		local member = page[j]
		local from = string.find(member, '\0', 1, true) + 1
		teams[#teams + 1] = string.sub(member, from, string.find(member, '\0', from, true) - 1)
	end
	-- In pieces that Lua's stack takes.
	for from = 1, #teams, 4000 do
		local got = redis.call('HMGET', vb .. ':' .. view .. ':rows', unpack(teams, from, math.min(from + 3999, #teams)))
		for _, row in ipairs(got) do
			rows[#rows + 1] = row
		end
	end
end
return { meta[1] or '0', meta[2] or '0', meta[3] or '', total, first, page, rows }
