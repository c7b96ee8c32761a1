-- The jury view's awards of each version of final standings, which differ from the public's until a thaw;
-- NULL in versions built before they were kept. json, not jsonb, as in 0003.
ALTER TABLE final_versions ADD COLUMN jury_awards json;
