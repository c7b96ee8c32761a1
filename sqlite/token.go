package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"

	"rankd"
)

// digest is what the store keeps of a token's secret. A secret is random and long, so a plain SHA-256
// (no salt, no slow hash) is enough to make a stolen database file grant nothing, and it lets a lookup
// be one index probe. Probing by digest leaks no timing about the secret itself.
func digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// SaveToken stores a token by the digest of its secret, replacing one with the same secret. A token
// without a secret, with an unknown role, or a team token without its contest and team is refused with
// EINVALID.
func (db *DB) SaveToken(ctx context.Context, t rankd.Token) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if err := db.checkFile(); err != nil {
		return err
	}
	_, err := db.write.ExecContext(ctx, `INSERT INTO tokens (digest, role, contest_id, team_id, name, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (digest) DO UPDATE SET role = excluded.role, contest_id = excluded.contest_id,
			team_id = excluded.team_id, name = excluded.name, created_at = excluded.created_at`,
		digest(t.Secret), string(t.Role), t.ContestID, t.TeamID, t.Name, unixNano(db.now()))
	if err != nil {
		return failWrite(ctx, "save token", err)
	}
	return nil
}

// LookupToken returns the token with this secret, its Secret left empty; an error with code ENOTFOUND
// when there is none.
func (db *DB) LookupToken(ctx context.Context, secret string) (rankd.Token, error) {
	var t rankd.Token
	var role string
	err := db.read.QueryRowContext(ctx, `SELECT role, contest_id, team_id, name FROM tokens WHERE digest = ?`,
		digest(secret)).Scan(&role, &t.ContestID, &t.TeamID, &t.Name)
	if errors.Is(err, sql.ErrNoRows) {
		// The message never repeats the secret: it ends up in logs.
		return rankd.Token{}, rankd.Errorf(rankd.ENOTFOUND, "unknown token")
	}
	if err != nil {
		return rankd.Token{}, fail(ctx, "lookup token", err)
	}
	t.Role = rankd.Role(role)
	return t, nil
}

// DeleteTeamTokens removes the team tokens of a team of a contest and returns how many there were.
func (db *DB) DeleteTeamTokens(ctx context.Context, contestID, teamID string) (int, error) {
	if err := db.checkFile(); err != nil {
		return 0, err
	}
	res, err := db.write.ExecContext(ctx, `DELETE FROM tokens WHERE role = ? AND contest_id = ? AND team_id = ?`,
		string(rankd.RoleTeam), contestID, teamID)
	if err != nil {
		return 0, failWrite(ctx, "delete team tokens", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, failWrite(ctx, "delete team tokens", err)
	}
	return int(n), nil
}
