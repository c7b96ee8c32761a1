package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"rankd"
)

// finalViews are the views final standings hold, as final_rows names them.
var finalViews = [2]string{"jury", "public"}

// SaveFinal stores a version of a contest's final standings and makes it active; see rankd.FinalStore. The
// store's single writer serializes the calls.
func (db *DB) SaveFinal(ctx context.Context, f rankd.FinalStandings) (int64, error) {
	if f.ContestID == "" {
		return 0, rankd.Errorf(rankd.EINVALID, "no contest id given")
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
	if err := db.checkFile(); err != nil {
		return 0, err
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, failWrite(ctx, "save final standings", err)
	}
	defer rollback(tx)
	var stored int64
	err = tx.QueryRowContext(ctx, `SELECT stored_at FROM segments
		WHERE contest = (SELECT key FROM contests WHERE id = ?) AND first_pos <= ? AND first_pos + count > ?`,
		f.ContestID, f.Pos, f.Pos).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && !fromUnixNano(stored).Equal(f.Stored):
		return 0, rankd.FinalOfAnotherLog(f)
	case err != nil:
		return 0, failWrite(ctx, "save final standings", err)
	}
	var active, activePos int64
	err = tx.QueryRowContext(ctx, `SELECT a.version, v.pos FROM final_active AS a
		JOIN final_versions AS v ON v.contest_id = a.contest_id AND v.version = a.version
		WHERE a.contest_id = ?`, f.ContestID).Scan(&active, &activePos)
	switch {
	case err == nil && activePos >= f.Pos:
		return active, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return 0, failWrite(ctx, "save final standings", err)
	}
	var version int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM final_versions WHERE contest_id = ?`,
		f.ContestID).Scan(&version); err != nil {
		return 0, failWrite(ctx, "save final standings", err)
	}
	built := unixNano(db.now())
	f.Version, f.Built = version, fromUnixNano(built)
	encoded, err := rankd.EncodeFinal(&f)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO final_versions (contest_id, version, pos, built_at, awards, jury_awards, encoded)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, f.ContestID, version, f.Pos, built, string(awards), string(juryAwards), encoded); err != nil {
		return 0, failWrite(ctx, "save final standings", err)
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO final_rows
		(contest_id, version, view, position, rank, team_id, solved, penalty, score, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, failWrite(ctx, "save final standings", err)
	}
	defer func() { _ = insert.Close() }() // the transaction's end frees it anyway
	for i, rows := range [2][]rankd.Row{f.Jury, f.Public} {
		for pos, r := range rows {
			data, err := json.Marshal(r)
			if err != nil {
				return 0, err
			}
			if _, err := insert.ExecContext(ctx, f.ContestID, version, finalViews[i], pos, r.Rank, r.TeamID,
				r.Solved, r.Penalty, r.Score, string(data)); err != nil {
				return 0, failWrite(ctx, "save final standings", err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO final_active (contest_id, version) VALUES (?, ?)
		ON CONFLICT (contest_id) DO UPDATE SET version = excluded.version`, f.ContestID, version); err != nil {
		return 0, failWrite(ctx, "save final standings", err)
	}
	for _, table := range []string{"final_rows", "final_versions"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE contest_id = ? AND version <= ?`,
			f.ContestID, version-rankd.FinalVersionsKept); err != nil {
			return 0, failWrite(ctx, "save final standings", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, failWrite(ctx, "save final standings", err)
	}
	return version, nil
}

// ActiveFinal returns a contest's active final standings, read in one snapshot; see rankd.FinalStore.
func (db *DB) ActiveFinal(ctx context.Context, contestID string) (rankd.FinalStandings, error) {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	defer rollback(tx)
	f := rankd.FinalStandings{ContestID: contestID}
	var built int64
	var awards string
	var juryAwards sql.NullString // NULL in versions built before the jury's awards were kept
	var encoded []byte            // NULL in versions built before they were kept whole
	err = tx.QueryRowContext(ctx, `SELECT v.version, v.pos, v.built_at, v.awards, v.jury_awards, v.encoded
		FROM final_active AS a JOIN final_versions AS v ON v.contest_id = a.contest_id AND v.version = a.version
		WHERE a.contest_id = ?`, contestID).Scan(&f.Version, &f.Pos, &built, &awards, &juryAwards, &encoded)
	if errors.Is(err, sql.ErrNoRows) {
		return rankd.FinalStandings{}, rankd.Errorf(rankd.ENOTFOUND, "contest %q has no final standings", contestID)
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
	f.Built = fromUnixNano(built)
	if err := json.Unmarshal([]byte(awards), &f.Awards); err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	if juryAwards.Valid {
		if err := json.Unmarshal([]byte(juryAwards.String), &f.JuryAwards); err != nil {
			return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT view, data FROM final_rows WHERE contest_id = ? AND version = ?
		ORDER BY view, position`, contestID, f.Version)
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	defer closeRows(rows)
	for rows.Next() {
		var view string
		var data []byte
		var r rankd.Row
		if err := rows.Scan(&view, &data); err != nil {
			return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
		}
		if view == finalViews[0] {
			f.Jury = append(f.Jury, r)
		} else {
			f.Public = append(f.Public, r)
		}
	}
	if err := rows.Err(); err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	return f, nil
}
