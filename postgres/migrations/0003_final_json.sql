-- Final standings as json rather than jsonb: jsonb refuses the NUL character (\u0000), which an award's
-- citation may hold (it is made of problem labels and group names, event data), and nothing queries inside
-- these values.
ALTER TABLE final_versions ALTER COLUMN awards TYPE json USING awards::json;
ALTER TABLE final_rows ALTER COLUMN data TYPE json USING data::json;
