package power

import (
	"bytes"
	"context"
	"testing"
)

// Every sample keeps its output bytes under issue control (RunComparison
// refuses a difference; the samples' references are checked by run too),
// and the comparison's every output is the same with 1 and 2 workers.
func TestComparisonSamples(t *testing.T) {
	names := []string{"nn", "bfs", "hotspot", "lud", "pathfinder", "gaussian", "matmul", "reduce", "vecadd", "volrender"}
	if testing.Short() {
		names = names[:2]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var out [2][]byte
			for i, workers := range []int{1, 2} {
				if i == 1 && name != "nn" && name != "bfs" {
					break
				}
				in := sampleInput(t, name)
				in.Workers = workers
				c, err := RunComparison(context.Background(), in, DefaultConfig(), DefaultIssueControl())
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := c.WriteTable(&b); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					t.Logf("\n%s", b.String())
				}
				c.WriteCSV(&b, true)
				c.WriteJSON(&b)
				out[i] = b.Bytes()
			}
			if out[1] != nil && !bytes.Equal(out[0], out[1]) {
				t.Error("outputs differ between Workers 1 and 2")
			}
		})
	}
}
