package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"rankd"
)

// finalViews are the views final standings hold, as final_rows names them.
var finalViews = [2]string{"jury", "public"}

// SaveFinal stores a version of a contest's final standings and makes it active; see rankd.FinalStore. A
// transaction-scoped advisory lock of the contest serializes the calls of every node, so that two racing
// finalizations give one version.
func (db *DB) SaveFinal(ctx context.Context, f rankd.FinalStandings) (int64, error) {
	if f.ContestID == "" {
		return 0, rankd.Errorf(rankd.EINVALID, "no contest id given")
	}
	if err := checkText("contest id", f.ContestID); err != nil {
		return 0, err
	}
	if f.Pos < 0 {
		return 0, rankd.Errorf(rankd.EINVALID, "final standings at position %d: negative", f.Pos)
	}
	awards, err := json.Marshal(f.Awards)
	if err != nil {
		return 0, err
	}
	juryAwards, err := json.Marshal(f.JuryAwards)
	if err != nil {
		return 0, err
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	defer rollback(ctx, tx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, finalLock, f.ContestID); err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	var stored time.Time
	err = tx.QueryRow(ctx, `SELECT stored_at FROM events
		WHERE contest = (SELECT key FROM contests WHERE id = $1) AND pos = $2`, f.ContestID, f.Pos).Scan(&stored)
	switch {
	case errNoRows(err) || err == nil && !stored.Equal(f.Stored):
		return 0, rankd.FinalOfAnotherLog(f)
	case err != nil:
		return 0, fail(ctx, "save final standings", err)
	}
	var active, activePos int64
	err = tx.QueryRow(ctx, `SELECT a.version, v.pos FROM final_active AS a
		JOIN final_versions AS v USING (contest_id, version) WHERE a.contest_id = $1`, f.ContestID).Scan(&active, &activePos)
	switch {
	case err == nil && activePos >= f.Pos:
		return active, nil
	case err != nil && !errNoRows(err):
		return 0, fail(ctx, "save final standings", err)
	}
	var version int64
	if err := tx.QueryRow(ctx, `INSERT INTO final_versions (contest_id, version, pos, awards, jury_awards)
		SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4 FROM final_versions WHERE contest_id = $1
		RETURNING version, built_at`, f.ContestID, f.Pos, awards, juryAwards).Scan(&version, &f.Built); err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	f.Version, f.Built = version, f.Built.UTC()
	encoded, err := rankd.EncodeFinal(&f)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `UPDATE final_versions SET encoded = $3 WHERE contest_id = $1 AND version = $2`,
		f.ContestID, version, encoded); err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	var rows [][]any
	for i, vrows := range [2][]rankd.Row{f.Jury, f.Public} {
		for pos, r := range vrows {
			data, err := json.Marshal(r)
			if err != nil {
				return 0, err
			}
			rows = append(rows, []any{f.ContestID, version, finalViews[i], int32(pos), int32(r.Rank), r.TeamID,
				int32(r.Solved), r.Penalty, r.Score, data})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"final_rows"},
		[]string{"contest_id", "version", "view", "position", "rank", "team_id", "solved", "penalty", "score", "data"},
		pgx.CopyFromRows(rows)); err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO final_active (contest_id, version) VALUES ($1, $2)
		ON CONFLICT (contest_id) DO UPDATE SET version = excluded.version`, f.ContestID, version); err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	for _, table := range []string{"final_rows", "final_versions"} {
		if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE contest_id = $1 AND version <= $2`,
			f.ContestID, version-rankd.FinalVersionsKept); err != nil {
			return 0, fail(ctx, "save final standings", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fail(ctx, "save final standings", err)
	}
	return version, nil
}

// finalLock is the first key of the advisory lock SaveFinal takes (the second is the contest's).
const finalLock = 0x72616e66 // "ranf"

// ActiveFinal returns a contest's active final standings, read in one snapshot; see rankd.FinalStore.
func (db *DB) ActiveFinal(ctx context.Context, contestID string) (rankd.FinalStandings, error) {
	notFound := rankd.Errorf(rankd.ENOTFOUND, "contest %q has no final standings", contestID)
	if !rankd.ValidText(contestID) {
		return rankd.FinalStandings{}, notFound
	}
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	defer rollback(ctx, tx)
	f := rankd.FinalStandings{ContestID: contestID}
	// juryAwards is NULL in versions built before they were kept, encoded in those built before they were
	// kept whole.
	var awards, juryAwards, encoded []byte
	err = tx.QueryRow(ctx, `SELECT v.version, v.pos, v.built_at, v.awards, v.jury_awards, v.encoded FROM final_active AS a
		JOIN final_versions AS v USING (contest_id, version) WHERE a.contest_id = $1`, contestID).
		Scan(&f.Version, &f.Pos, &f.Built, &awards, &juryAwards, &encoded)
	if errNoRows(err) {
		return rankd.FinalStandings{}, notFound
	}
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	if encoded != nil {
		if f, err = rankd.DecodeFinal(encoded); err != nil {
			return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
		}
		f.ContestID = contestID
		return f, nil
	}
	f.Built = f.Built.UTC()
	if err := json.Unmarshal(awards, &f.Awards); err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	if juryAwards != nil {
		if err := json.Unmarshal(juryAwards, &f.JuryAwards); err != nil {
			return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
		}
	}
	rows, err := tx.Query(ctx, `SELECT view, data FROM final_rows WHERE contest_id = $1 AND version = $2
		ORDER BY view, position`, contestID, f.Version)
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	var view string
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&view, &data}, func() error {
		var r rankd.Row
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		if view == finalViews[0] {
			f.Jury = append(f.Jury, r)
		} else {
			f.Public = append(f.Public, r)
		}
		return nil
	})
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	return f, nil
}
