-- token_aliases holds the tokens of entries that repeated an event of the log (a feed sending one line again
-- under a new token): each is another name of the event at pos, the object type and object_id's. Sent again,
-- such a token is a repeat of that event whatever the log holds by then; forgotten, the line could later be
-- taken for a re-creation of an object the log has deleted since.
CREATE TABLE token_aliases (
	contest   INTEGER NOT NULL REFERENCES contests (key),
	token     TEXT    NOT NULL,
	pos       INTEGER NOT NULL CHECK (pos > 0),
	type      INTEGER NOT NULL,
	object_id TEXT    NOT NULL,
	PRIMARY KEY (contest, token)
) STRICT, WITHOUT ROWID;
