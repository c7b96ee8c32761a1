// Benchmarks of the projection beside the reference Redis design (the ACM Lua script of
// ../../shared/reference/redis-zset-ranking-and-freeze-plan.zh.txt, section 8.4), in one run on one Redis:
//
//	eval "$(.ci/redis.sh)" && go test -run '^$' -bench . -benchtime 3s ./redis/
//
// Both boards hold 10,000 teams of an ICPC contest of 12 problems, each team with a cell of every problem,
// and take the same stream of judgements (a team's next submission on a problem, accepted one time in three).
// Ours gets, per judgement, the team's whole row as the board sends it (jury view; each team in one group):
// one update per judgement (batch=1, one round trip each, or 100 updates pipelined), or 100 judgements per
// update as a server's group commit sends them (batch=100). The reference gets the judged problem's detail as
// JSON, and its script reads back and decodes every detail of the team to sum them up: one script call per
// judgement, one round trip each or 100 pipelined. updates/s counts judgements; redis-cpu-us/update is the
// Redis server's CPU (INFO cpu, user+sys) per judgement, which bounds what one Redis serves whatever the
// clients do.
//
// Reads: a page of the top 50 rows by 16 concurrent readers, ours one script call, the reference ZREVRANGE +
// ZCARD and then 50 HGETALL, pipelined, with its JSON decoded; p99-ms is the 99th percentile latency.
package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"rankd"
	"rankd/redis"
	"rankd/redis/redistest"
)

const (
	benchTeams    = 10_000
	benchProblems = 12
	benchBatch    = 100 // judgements per pipeline, or per update of a server's group commit
	benchReaders  = 16
	benchPage     = 50
)

func BenchmarkApply(b *testing.B) {
	b.Run("ours/batch=1", func(b *testing.B) {
		p, c, sim := setupOurs(b)
		measure(b, 1, func() {
			t := sim.next()
			sim.pos++
			if _, err := p.Project(context.Background(), sim.update(c, t)); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("ours/batch=1/pipelined", func(b *testing.B) {
		p, c, sim := setupOurs(b)
		us := make([]rankd.ProjectionUpdate, benchBatch)
		measure(b, benchBatch, func() {
			for i := range us {
				t := sim.next()
				sim.pos++
				us[i] = sim.update(c, t)
				us[i].Views[0].Rows[0].Cells = slices.Clone(us[i].Views[0].Rows[0].Cells) // the next judgements change them
			}
			if err := p.ProjectPipelined(context.Background(), us); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run(fmt.Sprintf("ours/batch=%d", benchBatch), func(b *testing.B) {
		p, c, sim := setupOurs(b)
		measure(b, benchBatch, func() {
			teams := make([]int, 0, benchBatch)
			for range benchBatch {
				if t := sim.next(); !slices.Contains(teams, t) {
					teams = append(teams, t)
				}
			}
			sim.pos++
			if _, err := p.Project(context.Background(), sim.update(c, teams...)); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("reference", func(b *testing.B) {
		ref, sim := setupReference(b)
		measure(b, 1, func() {
			if err := ref.apply(context.Background(), ref.client, sim); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("reference/pipelined", func(b *testing.B) {
		ref, sim := setupReference(b)
		measure(b, benchBatch, func() {
			ctx := context.Background()
			pipe := ref.client.Pipeline()
			for range benchBatch {
				_ = ref.apply(ctx, pipe, sim) // queued: the errors come with Exec
			}
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		})
	})
}

func BenchmarkTop50(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		p, c, _ := setupOurs(b)
		q := rankd.ProjectionQuery{ContestID: c.ContestID, View: rankd.PublicView, Limit: benchPage}
		measureReads(b, func(ctx context.Context) error {
			st, err := p.Standings(ctx, q)
			if err == nil && len(st.Rows) != benchPage {
				err = fmt.Errorf("got %d rows, want %d", len(st.Rows), benchPage)
			}
			return err
		})
	})
	b.Run("reference", func(b *testing.B) {
		ref, _ := setupReference(b)
		measureReads(b, ref.top)
	})
}

// measure runs step, which applies n judgements, for the benchmark's iterations, and reports judgements per
// second and the Redis server's CPU per judgement.
func measure(b *testing.B, n int, step func()) {
	client := redistest.MustClient(b)
	cpu := redisCPU(b, client)
	judged := 0
	for b.Loop() {
		step()
		judged += n
	}
	cpu = redisCPU(b, client) - cpu
	b.ReportMetric(float64(judged)/b.Elapsed().Seconds(), "updates/s")
	b.ReportMetric(cpu.Seconds()*1e6/float64(judged), "redis-cpu-us/update")
}

// measureReads runs read on benchReaders goroutines and reports reads per second and their p99 latency.
func measureReads(b *testing.B, read func(ctx context.Context) error) {
	b.SetParallelism((benchReaders + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var (
		mu  sync.Mutex
		all []time.Duration
	)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		var took []time.Duration
		for pb.Next() {
			start := time.Now()
			if err := read(ctx); err != nil {
				b.Error(err)
				return
			}
			took = append(took, time.Since(start))
		}
		mu.Lock()
		all = append(all, took...)
		mu.Unlock()
	})
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(all))/b.Elapsed().Seconds(), "reads/s")
}

// redisCPU returns the CPU time the Redis server has used.
func redisCPU(tb testing.TB, client *goredis.Client) time.Duration {
	info, err := client.Info(context.Background(), "cpu").Result()
	if err != nil {
		tb.Fatal(err)
	}
	var total float64
	for line := range strings.Lines(info) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if k == "used_cpu_sys" || k == "used_cpu_user" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				tb.Fatalf("INFO cpu: %s: %v", line, err)
			}
			total += x
		}
	}
	return time.Duration(total * float64(time.Second))
}

// contestSim plays the judgements of an ICPC contest of benchTeams teams and benchProblems problems,
// keeping the teams' rows as the board would.
type contestSim struct {
	rng  *rand.Rand
	rows []rankd.ProjectedRow
	n    int   // judgements so far: contest time moves on with them
	pos  int64 // the log position of our projection
	// judged and problem are the team and problem of the last judgement.
	judged, problem int
}

func newContestSim() *contestSim {
	s := &contestSim{rng: rand.New(rand.NewPCG(1, 2)), rows: make([]rankd.ProjectedRow, benchTeams), pos: 1}
	for t := range s.rows {
		r := &s.rows[t]
		r.TeamID = strconv.Itoa(100000 + t)
		r.Name = fmt.Sprintf("Team %d", t)
		r.Groups = []string{strconv.Itoa(t % 4)}
		for p := range benchProblems {
			r.Cells = append(r.Cells, rankd.Cell{ProblemID: strconv.Itoa(1000 + p)})
		}
	}
	return s
}

// next plays one judgement and returns the team judged.
func (s *contestSim) next() int {
	s.n++
	at := time.Duration(s.n%1_000_000) * (5 * time.Hour / 1_000_000)
	t := s.rng.IntN(benchTeams)
	r := &s.rows[t]
	p := s.rng.IntN(benchProblems)
	c := &r.Cells[p]
	if c.Solved { // a rejudge of an accepted submission, as common as any other judgement of it
		c.Judged--
	}
	c.Judged++
	c.Solved = s.rng.IntN(3) == 0
	if c.Solved {
		c.Time = at
		c.Penalty = int64(at/time.Minute) + 20*int64(c.Judged-1)
	}
	r.Solved, r.Penalty, r.Time = 0, 0, 0
	for i := range r.Cells {
		if c := &r.Cells[i]; c.Solved {
			r.Solved++
			r.Penalty += c.Penalty
			r.Time = max(r.Time, c.Time)
		}
	}
	s.judged, s.problem = t, p
	return t
}

func benchContest() (rankd.Contest, []rankd.Problem) {
	c := rankd.Contest{ID: "bench", Rules: rankd.ICPC, Duration: 5 * time.Hour, PenaltyTime: 20 * time.Minute}
	ps := make([]rankd.Problem, benchProblems)
	for p := range ps {
		ps[p] = rankd.Problem{ID: strconv.Itoa(1000 + p)}
	}
	return c, ps
}

// update returns the update of the jury view that carries the rows of teams, at the simulation's position.
func (s *contestSim) update(c rankd.ProjectionUpdate, teams ...int) rankd.ProjectionUpdate {
	u := c
	rows := make([]rankd.ProjectedRow, len(teams))
	for i, t := range teams {
		rows[i] = s.rows[t]
	}
	u.Pos = s.pos
	u.Views = []rankd.ViewUpdate{{View: rankd.JuryView, Seq: uint64(s.pos), Rows: rows}}
	return u
}

// setupOurs returns a projection holding the board of a new simulation in both views, and the update
// that every later one copies.
func setupOurs(b *testing.B) (*redis.Projection, rankd.ProjectionUpdate, *contestSim) {
	p, _ := MustOpen(b)
	c, ps := benchContest()
	sim := newContestSim()
	full := rankd.ProjectionUpdate{ContestID: c.ID, Pos: sim.pos, Contest: c, Problems: ps}
	for i, v := range []rankd.View{rankd.JuryView, rankd.PublicView} {
		full.Views = append(full.Views, rankd.ViewUpdate{View: v, Seq: uint64(i + 1), Rows: sim.rows})
	}
	if err := p.Rebuild(context.Background(), full); err != nil {
		b.Fatal(err)
	}
	base := rankd.ProjectionUpdate{ContestID: c.ID, Contest: c, Problems: ps}
	sim.pos++
	if _, err := p.Project(context.Background(), sim.update(base, sim.next())); err != nil { // loads the script
		b.Fatal(err)
	}
	return p, base, sim
}

// reference is the reference design: a sorted set of user ids by solved*1e9 - penalty, and per user a hash
// of problem id → the problem's detail as JSON.
type reference struct {
	client         *goredis.Client
	detail, rank   string // key prefix of the details, key of the ranking
	unit, maxPenal string
}

// refDetail is the reference's ContestProblemDetail, as Jackson writes it.
type refDetail struct {
	QuestionID     int64   `json:"questionId"`
	Solved         bool    `json:"solved"`
	Attempts       int     `json:"attempts"`
	Penalty        int64   `json:"penalty"`
	FirstSolveTime *string `json:"firstSolveTime"`
	Score          *int    `json:"score"`
	TotalScore     *int    `json:"totalScore"`
}

// refACMScript is ACM_UPDATE_LUA of the reference, as written there.
var refACMScript = goredis.NewScript(`
    -- 1. 写入该题明细
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    -- 2. 读取所有题目明细，汇总 solvedCount 和 totalPenalty
    local all = redis.call('HGETALL', KEYS[1])
    local solved = 0
    local penalty = 0
    for i = 1, #all, 2 do
        local detail = cjson.decode(all[i+1])
        if detail.solved == true then
            solved = solved + 1
            penalty = penalty + (detail.penalty or 0)
        end
    end
    -- 3. 范围校验
    local maxPenalty = tonumber(ARGV[5])
    if penalty > maxPenalty then penalty = maxPenalty end
    if penalty < 0 then penalty = 0 end
    -- 4. 计算 score 并 ZADD
    local unit = tonumber(ARGV[4])
    local score = solved * unit - penalty
    redis.call('ZADD', KEYS[2], score, ARGV[3])
    return tostring(score)
`)

// setupReference returns the reference holding the board of a new simulation, every user with the detail
// of every problem.
func setupReference(b *testing.B) (*reference, *contestSim) {
	ctx := context.Background()
	prefix := redistest.MustPrefix(b)
	client := redistest.MustClient(b)
	ref := &reference{client: client, detail: prefix + ":contest:detail:1:", rank: prefix + ":contest:rank:1", unit: "1000000000", maxPenal: "999999999"}
	sim := newContestSim()
	pipe := client.Pipeline()
	for t := range sim.rows {
		var fields []any
		for p := range sim.rows[t].Cells {
			fields = append(fields, strconv.Itoa(1000+p), refJSON(&sim.rows[t].Cells[p]))
		}
		pipe.HSet(ctx, ref.detail+sim.rows[t].TeamID, fields...)
		pipe.ZAdd(ctx, ref.rank, goredis.Z{Score: 0, Member: sim.rows[t].TeamID})
		if t%1000 == 999 {
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := refACMScript.Load(ctx, client).Err(); err != nil {
		b.Fatal(err)
	}
	return ref, sim
}

// refJSON returns a cell as the reference's detail JSON.
func refJSON(c *rankd.Cell) string {
	d := refDetail{QuestionID: 0, Attempts: c.Judged, Solved: c.Solved}
	d.QuestionID, _ = strconv.ParseInt(c.ProblemID, 10, 64)
	if c.Solved {
		at := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC).Add(c.Time).Format("2006-01-02T15:04:05")
		d.FirstSolveTime, d.Penalty = &at, c.Penalty
	}
	j, _ := json.Marshal(d) // a struct of plain fields: no error
	return string(j)
}

// apply plays the next judgement and sends it to the reference's script through s (the client or a pipeline).
func (ref *reference) apply(ctx context.Context, s goredis.Scripter, sim *contestSim) error {
	t := sim.next()
	id := sim.rows[t].TeamID
	c := &sim.rows[t].Cells[sim.problem]
	return refACMScript.EvalSha(ctx, s, []string{ref.detail + id, ref.rank}, c.ProblemID, refJSON(c), id, ref.unit, ref.maxPenal).Err()
}

// top reads the reference's first page as its getContestRanking does: the page of user ids and the total,
// then every user's details.
func (ref *reference) top(ctx context.Context) error {
	pipe := ref.client.Pipeline()
	ids := pipe.ZRevRange(ctx, ref.rank, 0, benchPage-1)
	pipe.ZCard(ctx, ref.rank)
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	pipe = ref.client.Pipeline()
	details := make([]*goredis.MapStringStringCmd, 0, benchPage)
	for _, id := range ids.Val() {
		details = append(details, pipe.HGetAll(ctx, ref.detail+id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return err
	}
	for _, d := range details {
		for _, v := range d.Val() {
			var cell refDetail
			if err := json.Unmarshal([]byte(v), &cell); err != nil {
				return err
			}
		}
	}
	if len(details) != benchPage {
		return fmt.Errorf("got %d rows, want %d", len(details), benchPage)
	}
	return nil
}
