package gen

import (
	"strconv"
	"strings"
)

// The word lists below make names that look like a real contest's without any data file. Every list is
// fixed, so names depend only on the seed.

// city is where a generated organization sits; country is its ISO 3166-1 alpha-3 code.
type city struct{ name, country string }

var cities = [...]city{
	{"Lisbon", "PRT"}, {"Porto", "PRT"}, {"Madrid", "ESP"}, {"Valencia", "ESP"}, {"Barcelona", "ESP"},
	{"Paris", "FRA"}, {"Lyon", "FRA"}, {"Grenoble", "FRA"}, {"Brussels", "BEL"}, {"Ghent", "BEL"},
	{"Amsterdam", "NLD"}, {"Delft", "NLD"}, {"Utrecht", "NLD"}, {"Berlin", "DEU"}, {"Munich", "DEU"},
	{"Karlsruhe", "DEU"}, {"Aachen", "DEU"}, {"Zurich", "CHE"}, {"Lausanne", "CHE"}, {"Vienna", "AUT"},
	{"Prague", "CZE"}, {"Brno", "CZE"}, {"Warsaw", "POL"}, {"Krakow", "POL"}, {"Wroclaw", "POL"},
	{"Budapest", "HUN"}, {"Szeged", "HUN"}, {"Bucharest", "ROU"}, {"Iasi", "ROU"}, {"Cluj", "ROU"},
	{"Sofia", "BGR"}, {"Belgrade", "SRB"}, {"Zagreb", "HRV"}, {"Ljubljana", "SVN"}, {"Athens", "GRC"},
	{"Milan", "ITA"}, {"Pisa", "ITA"}, {"Bologna", "ITA"}, {"Oslo", "NOR"}, {"Bergen", "NOR"},
	{"Stockholm", "SWE"}, {"Uppsala", "SWE"}, {"Lund", "SWE"}, {"Copenhagen", "DNK"}, {"Aarhus", "DNK"},
	{"Helsinki", "FIN"}, {"Tallinn", "EST"}, {"Riga", "LVA"}, {"Vilnius", "LTU"}, {"Kyiv", "UKR"},
	{"Lviv", "UKR"}, {"Dublin", "IRL"}, {"Edinburgh", "GBR"}, {"Oxford", "GBR"}, {"Cambridge", "GBR"},
	{"Reykjavik", "ISL"}, {"Istanbul", "TUR"}, {"Ankara", "TUR"}, {"Haifa", "ISR"}, {"Tbilisi", "GEO"},
	{"Yerevan", "ARM"}, {"Minsk", "BLR"}, {"Chisinau", "MDA"}, {"Skopje", "MKD"},
}

// institution turns a city into a formal and a short organization name; the shorts differ between kinds so
// that names stay unique.
type institution struct{ formal, short string }

var institutions = [...]institution{
	{"University of %s", "U %s"},
	{"%s Institute of Technology", "%s Tech"},
	{"Technical University of %s", "TU %s"},
	{"%s State University", "%s State"},
	{"%s Polytechnic", "%s Poly"},
	{"%s College of Computing", "%s CC"},
	{"National University of %s", "NU %s"},
	{"%s University of Science", "%s Sci"},
}

var campuses = [...]string{
	"North", "South", "East", "West", "Central", "Riverside", "Hill", "Harbour", "Park", "Lakeside",
	"Old Town", "Valley",
}

// orgName returns the formal and short name of the k-th organization, unique for every k.
func orgName(k int) (formal, short string, country string) {
	c := cities[k%len(cities)]
	k /= len(cities)
	in := institutions[k%len(institutions)]
	k /= len(institutions)
	formal = strings.Replace(in.formal, "%s", c.name, 1)
	short = strings.Replace(in.short, "%s", c.name, 1)
	switch {
	case k == 0:
	case k <= len(campuses):
		formal += ", " + campuses[k-1] + " Campus"
		short += " " + campuses[k-1]
	default:
		n := strconv.Itoa(k - len(campuses) + 1)
		formal += ", Campus " + n
		short += " C" + n
	}
	return formal, short, c.country
}

var groupNames = [...]string{"Universities", "Schools", "Open", "Industry", "Guests", "Veterans"}

// groupName names the i-th group, falling back to numbers when the list runs out.
func groupName(i int) string {
	if i < len(groupNames) {
		return groupNames[i]
	}
	return "Group " + strconv.Itoa(i+1)
}

var adjectives = [...]string{
	"Binary", "Lazy", "Broken", "Hidden", "Crooked", "Silent", "Frozen", "Twisted", "Golden", "Endless",
	"Tiny", "Ancient", "Mirrored", "Balanced", "Noisy", "Secret", "Tangled", "Magic", "Wandering", "Sliding",
	"Paper", "Electric", "Shifting", "Lucky",
}

var nouns = [...]string{
	"Lanterns", "Bridges", "Robots", "Gardens", "Towers", "Rivers", "Puzzles", "Dominoes", "Islands", "Trains",
	"Mosaics", "Ladders", "Clocks", "Marbles", "Beacons", "Tunnels", "Kites", "Orchards", "Ferries", "Pebbles",
	"Lighthouses", "Mazes", "Bakeries", "Snowflakes",
}

// ctfCategories prefix CTF challenge names, as CTF boards do.
var ctfCategories = [...]string{"web", "pwn", "crypto", "rev", "forensics", "misc"}

// problemLabel labels the i-th of n problems: A..Z while they suffice, numbers otherwise.
func problemLabel(i, n int) string {
	if n <= 26 {
		return string(rune('A' + i))
	}
	return strconv.Itoa(i + 1)
}

// slug lower-cases s and turns every run of other characters than letters and digits into one '-'.
func slug(s string) string {
	b := make([]byte, 0, len(s))
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			b = append(b, byte(r))
			dash = false
		} else {
			dash = true
		}
	}
	return string(b)
}

// color is a problem's balloon colour.
type color struct{ name, rgb string }

var colors = [...]color{
	{"red", "#e6194b"}, {"green", "#3cb44b"}, {"yellow", "#ffe119"}, {"blue", "#4363d8"},
	{"orange", "#f58231"}, {"purple", "#911eb4"}, {"cyan", "#42d4f4"}, {"magenta", "#f032e6"},
	{"lime", "#bfef45"}, {"pink", "#fabed4"}, {"teal", "#469990"}, {"brown", "#9a6324"},
}
