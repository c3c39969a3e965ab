package launch_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"math"
	"os"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

// A single-launch spec runs the vecadd sample functionally and checks its
// output against the sample's Go reference.
func Example() {
	path := "../samples/vecadd/vecadd.sm_52.ptx"
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := ptx.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := launch.ParseSpec([]byte(`kernel: vecadd
grid: [1]
block: [64]
params:
  - {name: a, buffer: {type: f32, count: 40, init: {ramp: {start: 0, step: 1}}}}
  - {name: b, buffer: {type: f32, count: 40, init: {const: 0.5}}}
  - {name: c, buffer: {type: f32, count: 40, output: true}}
  - {name: n, value: 40}
checks:
  - {buffer: c, reference: vecadd}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := launch.SampleRegistry()
	prep, err := spec.Prepare(prog, launch.PrepareOptions{Registry: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := prep.Run(context.Background(), launch.ExecOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := prep.Buffer("c").Alloc.Data
	for i := 0; i < 3; i++ {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(c[4*i:])), " ")
	}
	fmt.Println("...", len(res.Launches), "launch")
	for _, r := range prep.Check(reg, "") {
		fmt.Println(r.Buffer, r.OK)
	}
	// Output:
	// 0.5 1.5 2.5 ... 1 launch
	// c true
}
