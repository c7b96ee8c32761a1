// Package ccs is the ICPC CCS Contest API as rankd reads and writes it: a fast event-feed Reader (both the
// 2020-03 and the 2022-07/2023-06 styles) and a Writer (2023-06 style) that convert between feed lines and
// rankd.Event, plus the 2023-06 scoreboard, state and award objects and the API's time formats. rankd's own
// needs that the CCS lacks (CTF and OI settings, subtask scores, bans) travel as documented extensions; see
// docs/ccs.md.
package ccs
