-- token_aliases holds the tokens of entries that repeated an event of the log (a feed sending one line again
-- under a new token): each is another name of the event at pos, the object type and object_id's. Sent again,
-- such a token is a repeat of that event whatever the log holds by then; forgotten, the line could later be
-- taken for a re-creation of an object the log has deleted since. A token is in events or here, never both.
CREATE TABLE token_aliases (
	contest   bigint NOT NULL REFERENCES contests (key),
	token     text COLLATE "C" NOT NULL,
	pos       bigint NOT NULL CHECK (pos > 0),
	type      smallint NOT NULL,
	object_id text COLLATE "C" NOT NULL,
	PRIMARY KEY (contest, token)
);
