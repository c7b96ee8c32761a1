-- The first schema of the embedded store. Times are unix nanoseconds (UTC); ids are the CCS ids as given.

-- contests holds every contest that has a log; a contest gets its row with its first stored entry.
CREATE TABLE contests (
	id         TEXT    NOT NULL PRIMARY KEY,
	created_at INTEGER NOT NULL
) STRICT;

-- events is the log: append-only, positions 1, 2, 3, ... per contest. Rows are clustered by (contest_id, pos)
-- so that a replay reads the file in order.
CREATE TABLE events (
	contest_id TEXT    NOT NULL REFERENCES contests (id),
	pos        INTEGER NOT NULL CHECK (pos > 0),
	type       INTEGER NOT NULL, -- rankd.EventType: its numbers are only ever appended to
	object_id  TEXT    NOT NULL,
	token      TEXT    NOT NULL DEFAULT '', -- '' when the sender gave none
	hash       TEXT    NOT NULL,
	data       BLOB    NOT NULL,
	stored_at  INTEGER NOT NULL,
	PRIMARY KEY (contest_id, pos)
) STRICT, WITHOUT ROWID;

-- A token is the sender's id of an event: unique per contest when there is one.
CREATE UNIQUE INDEX events_token ON events (contest_id, token) WHERE token <> '';

-- The latest version of an object, for deduplication by hash.
CREATE INDEX events_object ON events (contest_id, type, object_id, pos);

-- checkpoints holds the latest board checkpoint of each contest.
CREATE TABLE checkpoints (
	contest_id TEXT    NOT NULL PRIMARY KEY,
	pos        INTEGER NOT NULL CHECK (pos >= 0),
	data       BLOB    NOT NULL,
	saved_at   INTEGER NOT NULL
) STRICT;

-- submissions is the current version of every submission of the log, kept by Append; verdicts are not here
-- (the board knows what each view may see of them).
CREATE TABLE submissions (
	contest_id TEXT    NOT NULL REFERENCES contests (id),
	id         TEXT    NOT NULL,
	team_id    TEXT    NOT NULL,
	problem_id TEXT    NOT NULL,
	time_ms    INTEGER NOT NULL, -- contest time, milliseconds (the CCS precision)
	pos        INTEGER NOT NULL, -- log position of the submission's latest version
	PRIMARY KEY (contest_id, id)
) STRICT, WITHOUT ROWID;

-- One index per filter, each in list order, so that a page is read without sorting.
CREATE INDEX submissions_time ON submissions (contest_id, time_ms, id);
CREATE INDEX submissions_team ON submissions (contest_id, team_id, time_ms, id);
CREATE INDEX submissions_problem ON submissions (contest_id, problem_id, time_ms, id);

-- tokens holds access tokens issued through the API, by the digest of their secret: the secret itself is
-- never stored, so a copy of the file grants nothing.
CREATE TABLE tokens (
	digest     TEXT    NOT NULL PRIMARY KEY, -- hex SHA-256 of the secret
	role       TEXT    NOT NULL,
	contest_id TEXT    NOT NULL DEFAULT '',
	team_id    TEXT    NOT NULL DEFAULT '',
	name       TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
) STRICT;
