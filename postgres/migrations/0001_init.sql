-- The first schema of the PostgreSQL store. Ids are the CCS ids as given, compared bytewise (COLLATE "C"), so
-- that every store orders them alike whatever the database's collation. Times are timestamptz, by the
-- server's clock: one clock for every rankd node.

-- contests holds every contest that has a log; a contest gets its row with its first stored entry. Its row is
-- what Append locks (SELECT ... FOR UPDATE): the calls of one contest, from any node, run one after another,
-- and last_pos says where the log ends.
CREATE TABLE contests (
	key        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id         text COLLATE "C" NOT NULL UNIQUE,
	last_pos   bigint NOT NULL CHECK (last_pos >= 0),
	created_at timestamptz NOT NULL DEFAULT statement_timestamp()
);

-- events is the log: append-only, positions 1, 2, 3, ... per contest without gaps. type and object_id are the
-- entry's object (rankd.EventType, Event.ID); token is the sender's event token (NULL when none), unique per
-- contest; hash is the caller's opaque digest of data (NULL when none).
CREATE TABLE events (
	contest   bigint NOT NULL REFERENCES contests (key),
	pos       bigint NOT NULL CHECK (pos > 0),
	type      smallint NOT NULL,
	object_id text COLLATE "C" NOT NULL,
	token     text COLLATE "C",
	hash      bytea,
	data      bytea NOT NULL,
	stored_at timestamptz NOT NULL,
	PRIMARY KEY (contest, pos)
);

-- Deduplication by token.
CREATE UNIQUE INDEX events_token ON events (contest, token) WHERE token IS NOT NULL;

-- Deduplication by content: an object's latest version is its last entry here.
CREATE INDEX events_object ON events (contest, type, object_id, pos);

-- submissions is the submissions list, kept by Append from the log's submission events: a submission's latest
-- version, at the log position of that version; a deletion removes the row.
CREATE TABLE submissions (
	contest    bigint NOT NULL REFERENCES contests (key),
	id         text COLLATE "C" NOT NULL,
	team_id    text COLLATE "C" NOT NULL,
	problem_id text COLLATE "C" NOT NULL,
	time_ms    bigint NOT NULL, -- contest time, milliseconds
	pos        bigint NOT NULL,
	PRIMARY KEY (contest, id)
);

-- The list's order, whole and by team or problem: a page costs its offset and its length.
CREATE INDEX submissions_order ON submissions (contest, time_ms, id);
CREATE INDEX submissions_team ON submissions (contest, team_id, time_ms, id);
CREATE INDEX submissions_problem ON submissions (contest, problem_id, time_ms, id);

-- checkpoints holds the latest board checkpoint of each contest.
CREATE TABLE checkpoints (
	contest_id text COLLATE "C" NOT NULL PRIMARY KEY,
	pos        bigint NOT NULL CHECK (pos >= 0),
	data       bytea NOT NULL,
	saved_at   timestamptz NOT NULL DEFAULT statement_timestamp()
);

-- tokens holds access tokens issued through the API, by the SHA-256 digest of their secret: the secret itself
-- is never stored, so a copy of the database grants nothing.
CREATE TABLE tokens (
	digest     bytea NOT NULL PRIMARY KEY CHECK (length(digest) = 32),
	role       text NOT NULL CHECK (role IN ('admin', 'judge', 'team', 'public')),
	contest_id text COLLATE "C" NOT NULL DEFAULT '',
	team_id    text COLLATE "C" NOT NULL DEFAULT '',
	name       text NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL DEFAULT statement_timestamp()
);
