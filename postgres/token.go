package postgres

import (
	"context"
	"crypto/sha256"

	"rankd"
)

// digest is what the store keeps of a token's secret. A secret is random and long, so a plain SHA-256 (no
// salt, no slow hash) is enough to make a stolen database grant nothing, and it lets a lookup be one index
// probe. Probing by digest leaks no timing about the secret itself.
func digest(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// validToken checks what every stored token must hold, and that PostgreSQL can keep its text.
func validToken(t rankd.Token) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if err := checkText("token contest id", t.ContestID); err != nil {
		return err
	}
	if err := checkText("token team id", t.TeamID); err != nil {
		return err
	}
	return checkText("token name", t.Name)
}

// SaveToken stores a token by the digest of its secret, replacing one with the same secret. A token without a
// secret, with an unknown role, or a team token without its contest and team is refused with EINVALID.
func (db *DB) SaveToken(ctx context.Context, t rankd.Token) error {
	if err := validToken(t); err != nil {
		return err
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO tokens (digest, role, contest_id, team_id, name) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (digest) DO UPDATE SET role = excluded.role, contest_id = excluded.contest_id,
			team_id = excluded.team_id, name = excluded.name, created_at = excluded.created_at`,
		digest(t.Secret), string(t.Role), t.ContestID, t.TeamID, t.Name)
	if err != nil {
		return fail(ctx, "save token", err)
	}
	return nil
}

// LookupToken returns the token with this secret, its Secret left empty; an error with code ENOTFOUND when
// there is none.
func (db *DB) LookupToken(ctx context.Context, secret string) (rankd.Token, error) {
	var t rankd.Token
	var role string
	err := db.pool.QueryRow(ctx, `SELECT role, contest_id, team_id, name FROM tokens WHERE digest = $1`,
		digest(secret)).Scan(&role, &t.ContestID, &t.TeamID, &t.Name)
	if errNoRows(err) {
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
	if !rankd.ValidText(contestID) || !rankd.ValidText(teamID) {
		return 0, nil // no token holds such text, which PostgreSQL would refuse to compare
	}
	tag, err := db.pool.Exec(ctx, `DELETE FROM tokens WHERE role = $1 AND contest_id = $2 AND team_id = $3`,
		string(rankd.RoleTeam), contestID, teamID)
	if err != nil {
		return 0, fail(ctx, "delete team tokens", err)
	}
	return int(tag.RowsAffected()), nil
}
