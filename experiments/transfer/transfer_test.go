package transfer

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

func TestSizes(t *testing.T) {
	s := DefaultSizes()
	if len(s) != 24 || s[0] != 8 || s[23] != 64<<20 {
		t.Fatalf("DefaultSizes = %d sizes %v … %v, want 24 from 8 B to 64 MB", len(s), s[0], s[len(s)-1])
	}
	if got := Sizes(5, 40); len(got) != 3 || got[0] != 8 || got[2] != 32 {
		t.Errorf("Sizes(5, 40) = %v, want [8 16 32]", got)
	}
	if got := Sizes(100, 50); got != nil {
		t.Errorf("empty range: %v", got)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{8: "8B", 1000: "1000B", 1024: "1KB", 3 << 10: "3KB", 64 << 20: "64MB", 1536: "1536B"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func gtxSweep(t *testing.T) *Sweep {
	t.Helper()
	sw, err := Run(model.GTX480Transfer(), DefaultSizes())
	if err != nil {
		t.Fatal(err)
	}
	return sw
}

// TestSeedCrossoversInSweep: the advisor reports, for gtx480, the seed's
// single-transfer crossovers (Fig. 11: h2d IORW → DMA after 128 KB; d2h
// IORW → HUB at 256 B, HUB → DMA after 4 KB) and Fig. 12's d2h overlap
// band (256 B … 16 KB).
func TestSeedCrossoversInSweep(t *testing.T) {
	sw := gtxSweep(t)
	var got []string
	for _, c := range sw.Crossovers() {
		if !c.Pair {
			got = append(got, c.Dir.String()+" "+FormatBytes(c.Size)+" "+c.From+">"+c.To)
		}
	}
	want := []string{"h2d 256KB iorw>dma", "d2h 256B iorw>hub", "d2h 8KB hub>dma"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("single crossovers %v, seed %v", got, want)
	}
	var overlap []Band
	for _, b := range sw.Bands() {
		if b.Pair && b.Dir == model.DeviceToHost && strings.Contains(b.Best, "|") {
			overlap = append(overlap, b)
		}
	}
	if len(overlap) == 0 || overlap[0].Lo != 256 || overlap[len(overlap)-1].Hi != 16<<10 {
		t.Errorf("d2h overlap bands %+v, seed 256 B … 16 KB", overlap)
	}
}

func TestBandsTileSizes(t *testing.T) {
	sw := gtxSweep(t)
	cross := map[string]bool{}
	for _, c := range sw.Crossovers() {
		cross[c.Dir.String()+kind(c.Pair)+FormatBytes(c.Size)] = true
	}
	type key struct {
		d    model.Direction
		pair bool
	}
	next := map[key]int64{}
	last := map[key]string{}
	bounds := 0
	for _, b := range sw.Bands() {
		k := key{b.Dir, b.Pair}
		want, ok := next[k]
		if !ok {
			want = sw.Sizes[0]
		} else {
			bounds++
			if !cross[b.Dir.String()+kind(b.Pair)+FormatBytes(b.Lo)] {
				t.Errorf("band %+v starts at no crossover", b)
			}
			if last[k] == b.Best {
				t.Errorf("consecutive bands with the same best %s", b.Best)
			}
		}
		if b.Lo != want || b.Hi < b.Lo || b.BestAtLoOver < 1 {
			t.Errorf("band %+v: want Lo %d", b, want)
		}
		next[k], last[k] = b.Hi*2, b.Best
	}
	if bounds != len(cross) {
		t.Errorf("%d band boundaries, %d crossovers", bounds, len(cross))
	}
	for k, n := range next {
		if n/2 != sw.Sizes[len(sw.Sizes)-1] {
			t.Errorf("%v: bands end at %d", k, n/2)
		}
	}
}

func TestCSV(t *testing.T) {
	sw := gtxSweep(t)
	var b bytes.Buffer
	if err := sw.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 2 directions × (5 methods + 8 pairs) × 24 sizes + header.
	if len(recs) != 2*13*24+1 {
		t.Fatalf("%d records", len(recs))
	}
	fastest := map[string]int{}
	for _, r := range recs[1:] {
		if r[6] == "true" {
			fastest[r[1]+r[2]+r[4]]++
		}
		if r[1] == "h2d" && r[2] == "single" && r[3] == "dma" && r[4] == "4096" {
			// API 1000 + setup 14000 + 4096 B at 6000 MB/s = 682.666… ns, rounded up to the ps.
			if r[5] != "15682.667" {
				t.Errorf("dma h2d 4096 = %s ns, want 15682.667", r[5])
			}
		}
	}
	if len(fastest) != 2*2*24 {
		t.Errorf("%d (dir, kind, size) groups with a fastest, want 96", len(fastest))
	}
	for k, n := range fastest {
		if n != 1 {
			t.Errorf("%s: %d fastest", k, n)
		}
	}
}

func TestChartWellFormedAndDeterministic(t *testing.T) {
	sw := gtxSweep(t)
	var a, b bytes.Buffer
	if err := sw.Chart(&a); err != nil {
		t.Fatal(err)
	}
	if err := sw.Chart(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("chart bytes differ between renders")
	}
	dec := xml.NewDecoder(bytes.NewReader(a.Bytes()))
	lines, crosses := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			for _, at := range se.Attr {
				if at.Name.Local == "class" && strings.HasPrefix(at.Value, "line ") {
					lines++
				}
				if at.Name.Local == "class" && at.Value == "crossover" {
					crosses++
				}
			}
		}
	}
	if lines != 2*13 || crosses != len(sw.Crossovers()) {
		t.Errorf("%d lines (want 26), %d crossover marks (want %d)", lines, crosses, len(sw.Crossovers()))
	}
}

func TestTableMarksFastest(t *testing.T) {
	sw := gtxSweep(t)
	var b bytes.Buffer
	if err := sw.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"h2d single transfer", "d2h two transfers", "crossovers", "recommendation per size band", "d2h single at 256B iorw -> hub"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "*"); n != 2*2*24+1 {
		t.Errorf("%d stars, want one per row (96) + the legend", n)
	}
}

func TestRunRefuses(t *testing.T) {
	bad := model.GTX480Transfer()
	bad.APINs = 0
	if _, err := Run(bad, DefaultSizes()); err == nil {
		t.Error("invalid spec accepted")
	}
	if _, err := Run(model.GTX480Transfer(), []int64{16, 8}); err == nil {
		t.Error("descending sizes accepted")
	}
	if _, err := Run(model.GTX480Transfer(), nil); err == nil {
		t.Error("no sizes accepted")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"8": 8, "8B": 8, "4KB": 4096, "64mb": 64 << 20, "2k": 2048, "1GB": 1 << 30} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-8", "KB", "1.5MB", "99999999GB", "8XB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q): no error", bad)
		}
	}
}

// FuzzParseBytes: ParseBytes never panics, and what it accepts is a
// positive size within the model's limit.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"8", "64MB", "1k", "", "-1", "99999999999GB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err == nil && (n <= 0 || n > model.MaxTransferBytes) {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
	})
}
