package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/model/specfile"
)

func TestModelShow(t *testing.T) {
	for _, name := range model.PresetNames() {
		r := runCLI(t, "", "model", "show", name)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: code %d, stderr %q", name, r.code, r.stderr)
		}
		s, err := specfile.Parse([]byte(r.stdout))
		if err != nil {
			t.Fatalf("%s: output does not parse back: %v", name, err)
		}
		if want, _ := model.Preset(name); !reflect.DeepEqual(s, want) {
			t.Errorf("%s: output is not the preset", name)
		}
	}

	f := writeTemp(t, "my.yaml", "base: rtx3080\nname: small\nnum_sms: 4\n", 0o644)
	r := runCLI(t, "", "model", "show", f)
	if r.code != 0 || !strings.Contains(r.stdout, "name: small\n") || !strings.Contains(r.stdout, "num_sms: 4\n") ||
		!strings.Contains(r.stdout, "core_mhz: 1440\n") {
		t.Errorf("override: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"bad field", []string{writeTemp(t, "bad.yaml", "l1d:\n  ways: 0\n", 0o644)}, 1, "l1d.ways: must be > 0"},
		{"unknown field", []string{writeTemp(t, "bad.yaml", "l1d:\n  wayz: 2\n", 0o644)}, 1, "wayz"},
		{"unknown preset", []string{"gtx9000"}, 1, `unknown model "gtx9000"`},
		{"missing file", []string{"./nope.yaml"}, 1, "nope.yaml"},
		{"no argument", nil, 2, "want one preset name or file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, "", append([]string{"model", "show"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("code %d, stderr %q; want %d and %q", r.code, r.stderr, c.code, c.msg)
			}
		})
	}
	if r := runCLI(t, "", "model"); r.code != 2 {
		t.Errorf("model without subcommand: code %d", r.code)
	}
}
