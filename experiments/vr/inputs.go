package vr

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/launch"
)

// Inputs makes each generated launch input (the volume above all: 128 MiB
// at 512³) once and shares it, read-only, between the runs of a sweep: a
// texture wraps the generator's bytes without copying them (launch), so a
// volume costs its size once however many runs use it in parallel. The
// zero value is ready; an Inputs is safe for concurrent use and must not
// be copied after first use.
type Inputs struct {
	mu sync.Mutex
	m  map[string]*input
}

type input struct {
	done chan struct{} // closed once out and err are set
	out  launch.GenOutput
	err  error
}

// registry returns reg with every generator going through the cache.
func (c *Inputs) registry(reg launch.Registry) launch.Registry {
	gens := make(map[string]launch.GenFunc, len(reg.Generators))
	for name, g := range reg.Generators {
		gens[name] = func(args map[string]string) (launch.GenOutput, error) { return c.get(name, args, g) }
	}
	reg.Generators = gens
	return reg
}

// get returns the output of generator name for args, calling g the first
// time only; concurrent callers of one key wait for that call.
func (c *Inputs) get(name string, args map[string]string, g launch.GenFunc) (launch.GenOutput, error) {
	key := inputKey(name, args)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*input{}
	}
	in, ok := c.m[key]
	if !ok {
		in = &input{done: make(chan struct{})}
		c.m[key] = in
	}
	c.mu.Unlock()
	if ok {
		<-in.done
		return in.out, in.err
	}
	in.out, in.err = g(args)
	close(in.done)
	return in.out, in.err
}

// inputKey is name and the arguments sorted by key, each part quoted so
// that no two different argument maps give one key.
func inputKey(name string, args map[string]string) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(name))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		b.WriteString(" " + strconv.Quote(k) + "=" + strconv.Quote(args[k]))
	}
	return b.String()
}
