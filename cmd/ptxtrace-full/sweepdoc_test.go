package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepDocExamples runs docs/sweep.md's worked examples as written,
// in order, in a temporary directory holding the doc's spec: every
// "ptxtrace" line of its sh blocks must exit 0 ("ls" lines run in sh;
// sbatch, kubectl and submit.sh need a cluster and are skipped), and the
// merged output must equal the sweep vr line the doc names.
func TestSweepDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/sweep.md")
	if err != nil {
		t.Fatal(err)
	}
	var spec, kernels string // the first and second yaml blocks
	var lines []string
	block, specDone, yamls := "", false, 0
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "```") {
			if block == "" {
				block = strings.TrimPrefix(l, "```") + " "
			} else {
				if block == "yaml " {
					yamls++
				}
				specDone = specDone || block == "yaml "
				block = ""
			}
			continue
		}
		switch {
		case block == "yaml " && !specDone:
			spec += l + "\n"
		case block == "yaml " && yamls == 1:
			kernels += l + "\n"
		case block == "sh ":
			lines = append(lines, l)
		}
	}
	if !strings.Contains(spec, "vr:") || !strings.Contains(kernels, "kernels:") || len(lines) < 11 {
		t.Fatalf("doc: spec %q, %d sh lines", spec, len(lines))
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.WriteFile("spec.yaml", []byte(spec), 0o644)
	// the kernels example runs "from the repository root": its paths
	// resolve through links to the repository's directories
	os.WriteFile("kernels.yaml", []byte(kernels), 0o644)
	for _, dir := range []string{"samples", "analysis"} {
		if err := os.Symlink(filepath.Join(repo, dir), dir); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "ptxtrace "):
			n++
			if r := runCLI(t, "", strings.Fields(l)[1:]...); r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", l, r.code, r.stderr)
			}
		case strings.HasPrefix(l, "ls "):
			if out, err := exec.Command("sh", "-c", l).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", l, err, out)
			}
		}
	}
	for _, f := range []string{"slurm/sweep-array.sbatch", "slurm/submit.sh", "k8s/sweep-job.yaml", "out/merged/report.html", "kout/merged/results.csv"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if b, _ := os.ReadFile("slurm/sweep-array.sbatch"); !strings.Contains(string(b), "#SBATCH --array=0-3%2\n") {
		t.Errorf("the doc's Slurm array is not 0-3%%2:\n%s", b)
	}
	// the doc says the merge equals this sweep vr
	const vrLine = "ptxtrace sweep vr --image 16 --volume 8 --shapes 32x4,4x32 -o vr"
	if !strings.Contains(string(doc), "`"+vrLine+"`") {
		t.Fatalf("doc lacks %q", vrLine)
	}
	if r := runCLI(t, "", strings.Fields(vrLine)[1:]...); r.code != 0 {
		t.Fatal(r.stderr)
	}
	compareDirs(t, "vr", filepath.Join("out", "merged"), "results.csv", "results.parquet")
	t.Logf("%d documented command lines ran", n)
}
