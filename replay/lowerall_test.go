package replay

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLowerSamples lowers every entry of every sample without warnings.
func TestLowerSamples(t *testing.T) {
	files, _ := filepath.Glob("../samples/*/*.ptx")
	if len(files) == 0 {
		t.Skip("no samples")
	}
	for _, f := range files {
		p := loadPTX(t, f)
		for _, e := range p.Entries() {
			c, err := p.Lower(e)
			if err != nil {
				t.Errorf("%s %s: %v", f, e, err)
				continue
			}
			for _, w := range c.Warnings {
				if strings.Contains(w, "textures and surfaces are not supported yet") {
					t.Logf("pending: %s", w) // internal/texture not yet available
					continue
				}
				t.Errorf("%s", w)
			}
		}
	}
}
