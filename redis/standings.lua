-- Reads a page of a view (or of a group of it) from the active version, with the view's seq, in one step:
-- rows and seq always match.
--
-- KEYS[1]  the active pointer, <base>:active
-- ARGV     base, view, group ("" for the whole view), offset, limit (negative: all), the caller's layout
--          version (what its layouts' names end with)
-- Returns  nil when the contest has no projection of that layout version, else {pos, seq, problems, total,
--          {the rank of each row}, {the member of each row}, {each row}}.
local active = redis.call('GET', KEYS[1])
if not active then
	return nil
end
local vb = ARGV[1] .. ':v' .. active
local view = ARGV[2]
local meta = redis.call('HMGET', vb .. ':meta', 'pos', 'seq:' .. view, 'problems', 'layout')
local version = ARGV[6]
if string.sub(meta[4] or '', -#version) ~= version then
	return nil
end
-- Rows share a rank when their scores are equal and, in this layout, the times that start their members.
local tieLen = 0
if meta[4] == 'exact:time/2' then
	tieLen = 16
end
local tie = function(member)
	return string.sub(member, 1, tieLen)
end
local set = vb .. ':' .. view
if ARGV[3] ~= '' then
	set = set .. ':g:' .. ARGV[3]
end
local total = redis.call('ZCARD', set)
local offset, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
local page = {}
if limit ~= 0 and offset < total then
	-- A stop past the end reads to the end: a Lua number of 10^17 or more reaches Redis in exponent form,
	-- which ZRANGE refuses.
	local stop = -1
	if limit > 0 and limit < total - offset then
		stop = offset + limit - 1
	end
	page = redis.call('ZRANGE', set, offset, stop, 'WITHSCORES')
end
local ranks, members, rows = {}, {}, {}
if #page > 0 then
	-- The first row's rank is one more than the number of rows ahead of it: those of a lower score, then
	-- those of its score and an earlier time, found by bisection between the first of its score and it.
	local ahead = redis.call('ZCOUNT', set, '-inf', '(' .. page[2])
	if tieLen > 0 then
		local hi, t = offset, tie(page[1])
		while ahead < hi do
			local mid = math.floor((ahead + hi) / 2)
			if tie(redis.call('ZRANGE', set, mid, mid)[1]) == t then
				hi = mid
			else
				ahead = mid + 1
			end
		end
	end
	ranks[1] = ahead + 1
	for j = 3, #page, 2 do
		if page[j + 1] == page[j - 1] and tie(page[j]) == tie(page[j - 2]) then
			ranks[#ranks + 1] = ranks[#ranks]
		else
			ranks[#ranks + 1] = offset + (j + 1) / 2
		end
	end
	local teams = {}
	for j = 1, #page, 2 do
		-- A member is the tie and name, NUL, team id, NUL, groups.
		local member = page[j]
		members[#members + 1] = member
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
return { meta[1] or '0', meta[2] or '0', meta[3] or '', total, ranks, members, rows }
