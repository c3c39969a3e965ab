package web

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

//go:embed static
var staticFS embed.FS

// Chart is one prepared SVG chart of a run.
type Chart struct {
	ID    string `json:"id"` // e.g. "fig5", "fig10", "probe_error"
	Title string `json:"title"`
	Text  string `json:"text,omitempty"` // what the chart shows
	SVG   string `json:"svg"`
}

// Run is one run the server shows: its index, its charts (RunCharts) and
// the statistics the charts across runs are drawn from (nil: the run is
// left out of them).
type Run struct {
	Index  *Index
	Charts []Chart
	Stats  *Stats
}

// Server serves the viewer over the runs it was built with.
type Server struct {
	runs []Run
	mux  *http.ServeMux
	// The charts across runs, made on first request.
	cmpOnce sync.Once
	cmp     []Chart
	cmpErr  error
}

// NewServer returns a handler over runs (addressed by their position).
func NewServer(runs []Run) *Server {
	s := &Server{runs: runs, mux: http.NewServeMux()}
	sub, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(sub)
	s.mux.Handle("GET /", files)
	s.mux.HandleFunc("GET /api/runs", s.handleRuns)
	s.mux.HandleFunc("GET /api/tree", s.handleTree)
	s.mux.HandleFunc("GET /api/tiles", s.handleTiles)
	s.mux.HandleFunc("GET /api/region", s.handleRegion)
	s.mux.HandleFunc("GET /api/source", s.handleSource)
	s.mux.HandleFunc("GET /api/search", s.handleSearch)
	s.mux.HandleFunc("GET /api/charts", s.handleCharts)
	s.mux.HandleFunc("GET /api/tracks", s.handleTracks)
	s.mux.HandleFunc("GET /api/compare", s.handleCompare)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// The page loads nothing from elsewhere; the policy makes the browser
	// refuse it if it ever tried.
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code int, msg string) {
	http.Error(w, msg, code)
}

// run resolves the run query parameter: an index into the runs, nothing else.
func (s *Server) run(w http.ResponseWriter, r *http.Request) *Run {
	v := r.URL.Query().Get("run")
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(s.runs) || strconv.Itoa(i) != v {
		fail(w, http.StatusNotFound, "no run "+strconv.Quote(v))
		return nil
	}
	return &s.runs[i]
}

type runInfo struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Kernel  string  `json:"kernel"`
	Timer   string  `json:"timer"`
	ClockHz float64 `json:"clock_hz"`
	T0      int64   `json:"t0"` // the regions' range
	T1      int64   `json:"t1"`
	// X0, X1: the range of everything drawn (regions and transfers);
	// Origin: the ruler's zero.
	X0      int64 `json:"x0"`
	X1      int64 `json:"x1"`
	Origin  int64 `json:"origin"`
	Warps   int   `json:"warps"`
	Regions int64 `json:"regions"`
}

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	out := []runInfo{}
	for i, run := range s.runs {
		ix := run.Index
		x0, x1 := ix.Extent()
		out = append(out, runInfo{ID: i, Name: ix.Name, Kernel: ix.Kernel, Timer: ix.Timer, ClockHz: ix.ClockHz, T0: ix.T0, T1: ix.T1,
			X0: x0, X1: x1, Origin: ix.Origin, Warps: len(ix.Rows), Regions: ix.Total})
	}
	writeJSON(w, out)
}

func (s *Server) handleTree(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	writeJSON(w, run.Index.Nodes)
}

func intParam(r *http.Request, name string) (int64, error) {
	return strconv.ParseInt(r.URL.Query().Get(name), 10, 64)
}

func (s *Server) handleTiles(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	t0, e0 := intParam(r, "t0")
	t1, e1 := intParam(r, "t1")
	px, e2 := intParam(r, "px")
	if e0 != nil || e1 != nil || e2 != nil {
		fail(w, http.StatusBadRequest, "t0, t1 and px must be integers")
		return
	}
	var nodes []int
	for _, f := range strings.Split(r.URL.Query().Get("rows"), ",") {
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			fail(w, http.StatusBadRequest, "rows: "+strconv.Quote(f)+" is not a node id")
			return
		}
		nodes = append(nodes, n)
	}
	if len(nodes) > 4096 {
		fail(w, http.StatusBadRequest, "at most 4096 rows per query")
		return
	}
	bet := int64(DefaultBET)
	if v := r.URL.Query().Get("bet"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			fail(w, http.StatusBadRequest, "bet must be a non-negative integer (cycles)")
			return
		}
		bet = n
	}
	tiles, err := run.Index.TilesBET(nodes, t0, t1, int(px), bet)
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, tiles)
}

func (s *Server) handleRegion(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	row, e0 := intParam(r, "row")
	i, e1 := intParam(r, "i")
	if e0 != nil || e1 != nil {
		fail(w, http.StatusBadRequest, "row and i must be integers")
		return
	}
	d, err := run.Index.Detail(int(row), int(i))
	if err != nil {
		fail(w, http.StatusNotFound, err.Error())
		return
	}
	writeJSON(w, d)
}

func (s *Server) handleSource(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	writeJSON(w, run.Index.Lines())
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	q := r.URL.Query()
	line := 0
	if v := q.Get("line"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			fail(w, http.StatusBadRequest, "line must be a positive integer")
			return
		}
		line = n
	}
	if line == 0 && q.Get("q") == "" {
		fail(w, http.StatusBadRequest, "give line or q")
		return
	}
	hits, total := run.Index.Search(line, q.Get("q"), 200)
	if hits == nil {
		hits = []Hit{}
	}
	writeJSON(w, map[string]any{"hits": hits, "total": total})
}

func (s *Server) handleCharts(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	c := run.Charts
	if c == nil {
		c = []Chart{}
	}
	writeJSON(w, c)
}

// tracksInfo is the answer of /api/tracks: the run's tracks beside the
// warp tree (all of them small: sent whole).
type tracksInfo struct {
	Transfers    []TransferSpan `json:"transfers"`
	TransferNote string         `json:"transfer_note,omitempty"`
	// Activity: whether activity rows are in the tree, or why not.
	Activity     bool   `json:"activity"`
	ActivityNote string `json:"activity_note,omitempty"`
	DefaultBET   int    `json:"default_bet"`
}

func (s *Server) handleTracks(w http.ResponseWriter, r *http.Request) {
	run := s.run(w, r)
	if run == nil {
		return
	}
	ix := run.Index
	out := tracksInfo{Transfers: ix.Transfers, TransferNote: ix.TransferNote, Activity: ix.act != nil, ActivityNote: ix.ActivityNote, DefaultBET: DefaultBET}
	if out.Transfers == nil {
		out.Transfers = []TransferSpan{}
	}
	writeJSON(w, out)
}

// handleCompare answers the charts across all runs (CompareCharts).
func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	s.cmpOnce.Do(func() {
		var sts []*Stats
		for _, run := range s.runs {
			if run.Stats != nil {
				sts = append(sts, run.Stats)
			}
		}
		s.cmp, s.cmpErr = CompareCharts(sts)
	})
	if s.cmpErr != nil {
		fail(w, http.StatusInternalServerError, s.cmpErr.Error())
		return
	}
	c := s.cmp
	if c == nil {
		c = []Chart{}
	}
	writeJSON(w, c)
}
