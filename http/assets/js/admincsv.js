// Teams from a CSV file, read in the browser: the records of the file (RFC 4180), and the team each line
// defines, or why it cannot.
//
// The file has a header line naming its columns — id, name, organization, groups, in any order; id and name
// are required — then one team a line:
//
//   id,name,organization,groups
//   t1,Alpha,tud,students;europe
//   t2,"Bravo, Charlie and Delta",,students
//
// organization is an organization's id (or its name, when one organization has it); groups are group ids (or
// names) separated by ";". Fields with commas, quotes or line breaks are quoted ("..."), a quote inside one
// doubled ("").

// columns are the columns a header may name, each with the other spellings taken for it.
const columns = {
  id: ["id", "team_id", "team id"],
  name: ["name", "team", "team name"],
  organization: ["organization", "organization_id", "organisation", "affiliation"],
  groups: ["groups", "group_ids", "group", "categories"],
};

// CCS ids, as the server takes new ones: 1 to 36 letters, digits, "_", "-" and ".", starting with a letter,
// a digit or "_", not ending with ".".
const idPattern = /^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,34}[A-Za-z0-9_-])?$/;

export function validID(id) {
  return idPattern.test(id);
}

// parseCSV splits a text into records: { line (where the record starts, from 1), fields, error }. Blank
// lines are skipped. A quoted field left open takes the rest of the text, and is the error of its record.
export function parseCSV(text) {
  const records = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark, as spreadsheets write
  let line = 1;
  let rec = null;
  let field = "";
  let quoted = false; // the field began with a quote
  let inQuotes = false;
  const endField = () => {
    rec.fields.push(field);
    field = "";
    quoted = false;
  };
  const endRecord = () => {
    endField();
    const blank = rec.fields.length === 1 && rec.fields[0].trim() === "" && !rec.error && !rec.quoted;
    if (!blank) records.push(rec);
    rec = null;
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (!rec) rec = { line, fields: [], error: "", quoted: false };
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          inQuotes = false;
        }
      } else {
        if (c === "\n") line++;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        if (field.trim() === "" && !quoted) {
          // Spaces before the opening quote are the writer's layout, not the field's.
          field = "";
          inQuotes = quoted = rec.quoted = true;
        } else if (!rec.error) {
          rec.error = quoted
            ? `field ${rec.fields.length + 1}: text after its closing quote`
            : `field ${rec.fields.length + 1}: a quote inside a field that does not begin with one (quote the whole field, and double the quotes inside)`;
        }
        break;
      case ",":
        endField();
        break;
      case "\r":
        if (text[i + 1] === "\n") i++;
        line++;
        endRecord();
        break;
      case "\n":
        line++;
        endRecord();
        break;
      default:
        if (quoted && (c === " " || c === "\t")) break; // spaces after the closing quote
        if (quoted && !rec.error) rec.error = `field ${rec.fields.length + 1}: text after its closing quote`;
        field += c;
    }
  }
  if (inQuotes) rec.error = `a quoted field opened on this line is never closed: it takes the rest of the file`;
  if (rec) endRecord();
  return records.map(({ line: l, fields, error }) => ({ line: l, fields, error }));
}

// resolver finds objects (groups, organizations) by id, or by name when one object has it.
function resolver(objects) {
  const byID = new Map(objects.map((o) => [o.id, o]));
  const byName = new Map();
  for (const o of objects) {
    const k = (o.name || "").trim().toLowerCase();
    if (k) byName.set(k, byName.has(k) ? null : o); // null: more than one has the name
  }
  return (s) => byID.get(s) || byName.get(s.toLowerCase()) || undefined;
}

// teamsFromCSV reads the teams of a CSV text. known holds what the contest has: groups and organizations
// ([{id, name}]) and teams (a Map by id, of the jury's team objects). It returns { error } when the header
// is wrong, else { columns, lines }: one line per record after the header, each { line, fields, team,
// errors, warnings }, team set when the line has no error. A line naming a registered team replaces its
// name, and its organization and groups when the file has their columns; what the file does not say of it
// (hidden, label, display name, organization and groups without their columns) stays.
export function teamsFromCSV(text, known) {
  const records = parseCSV(text);
  if (records.length === 0) return { error: "The file is empty: it needs a header line (id,name,organization,groups) and one line per team." };
  const head = records[0];
  if (head.error) return { error: `Line ${head.line} (the header): ${head.error}.` };
  const index = {};
  for (const [i, raw] of head.fields.entries()) {
    const name = raw.trim().toLowerCase();
    const col = Object.keys(columns).find((k) => columns[k].includes(name));
    if (!col) {
      return { error: `Line ${head.line} (the header): unknown column “${raw.trim()}”. The columns are id, name, organization and groups.` };
    }
    if (col in index) return { error: `Line ${head.line} (the header): the column ${col} is named twice.` };
    index[col] = i;
  }
  for (const need of ["id", "name"]) {
    if (!(need in index)) return { error: `Line ${head.line} (the header): there is no ${need} column. The header names the columns, e.g. id,name,organization,groups.` };
  }
  const group = resolver(known.groups || []);
  const org = resolver(known.organizations || []);
  const seen = new Map();
  const lines = [];
  for (const rec of records.slice(1)) {
    const l = { line: rec.line, fields: rec.fields, team: null, errors: [], warnings: [] };
    lines.push(l);
    if (rec.error) {
      l.errors.push(rec.error);
      continue;
    }
    if (rec.fields.length !== head.fields.length) {
      l.errors.push(`${rec.fields.length} fields, want ${head.fields.length} (${head.fields.map((f) => f.trim()).join(",")})`);
      continue;
    }
    const get = (col) => (col in index ? rec.fields[index[col]].trim() : "");
    const id = get("id");
    const name = get("name");
    if (id === "") {
      l.errors.push("no id");
    } else if (!validID(id)) {
      l.errors.push(`id “${id}”: an id has 1 to 36 letters, digits, “_”, “-” and “.”, starting with a letter, a digit or “_”, not ending with “.”`);
    } else if (seen.has(id)) {
      l.errors.push(`id ${id} again: line ${seen.get(id)} has it`);
    } else {
      seen.set(id, rec.line);
    }
    if (name === "") l.errors.push("no name");
    const team = { id, name };
    const o = get("organization");
    if (o !== "") {
      const found = org(o);
      if (found) {
        team.organization_id = found.id;
      } else if (validID(o)) {
        team.organization_id = o;
        l.warnings.push(`organization ${o} is not one this page knows (the API lists only organizations with teams): sent as an id`);
      } else {
        l.errors.push(`unknown organization “${o}”: add it first, or give its id`);
      }
    }
    const groupIDs = [];
    for (const g of get("groups").split(";").map((s) => s.trim()).filter((s) => s !== "")) {
      const found = group(g);
      if (!found) {
        l.errors.push(`unknown group “${g}”: add it first`);
      } else if (!groupIDs.includes(found.id)) {
        groupIDs.push(found.id);
      }
    }
    team.group_ids = groupIDs;
    const old = known.teams && known.teams.get(id);
    if (old) {
      for (const k of ["label", "display_name", "hidden"]) if (old[k]) team[k] = old[k];
      // A column the file does not have says nothing of the team: a file of new names keeps its organization
      // and groups (a team of a hidden group would go on the public board with its results).
      if (!("organization" in index) && old.organization_id) team.organization_id = old.organization_id;
      if (!("groups" in index)) team.group_ids = old.group_ids || [];
      l.warnings.push(`replaces team ${id} (${old.name})${old.hidden ? ", which stays hidden" : ""}`);
      const hiddenGroups = (known.groups || []).filter((g) => g.hidden);
      const leaves = hiddenGroups.filter((g) => (old.group_ids || []).includes(g.id) && !team.group_ids.includes(g.id));
      if (leaves.length) l.warnings.push(`leaves hidden group ${leaves.map((g) => g.name || g.id).join(", ")}: its results go on the public board`);
    }
    if (l.errors.length === 0) l.team = team;
  }
  return { columns: head.fields.map((f) => f.trim()), lines };
}
