-- The jury view's awards of each version of final standings (JSON), which differ from the public's until a
-- thaw; NULL in versions built before they were kept.
ALTER TABLE final_versions ADD COLUMN jury_awards TEXT;
