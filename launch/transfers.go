package launch

import (
	"fmt"
	"math"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// CopySpec is one entry of a spec's `transfers:` (docs/launch.md,
// "Transfers"): buffer Buffer is copied host→device before every launch
// (Dir "in") or device→host after every launch (Dir "out") by Method
// (dma, iorw, hub, gpc1, gpc4) or "auto" (the fastest for its size and
// direction; the default). Transfers are timed by the transfer model of
// the timing model's preset (model.TransferPreset); they do not move data
// (replay's device memory already holds the buffers), so outputs do not
// depend on them.
type CopySpec struct {
	Buffer string `yaml:"buffer"`
	Dir    string `yaml:"dir"`
	Method string `yaml:"method,omitempty"`
}

// AutoMethod selects the fastest method per size and direction.
const AutoMethod = "auto"

func validateTransfers(ts []CopySpec) error {
	for i, t := range ts {
		if t.Buffer == "" {
			return fmt.Errorf("transfers[%d]: buffer missing", i)
		}
		if t.Dir != "in" && t.Dir != "out" {
			return fmt.Errorf("transfers[%d] (%s): dir %q (want in or out)", i, t.Buffer, t.Dir)
		}
		if t.Method != "" && t.Method != AutoMethod {
			if _, err := model.ParseTransferMethod(t.Method); err != nil {
				return fmt.Errorf("transfers[%d] (%s): %v (or auto)", i, t.Buffer, err)
			}
		}
	}
	return nil
}

// checkTransfers checks that every transfer names a buffer of the spec.
func (p *Prepared) checkTransfers() error {
	for i, t := range p.Spec.Transfers {
		if p.byName[t.Buffer] == nil {
			return fmt.Errorf("transfers[%d]: no buffer %q", i, t.Buffer)
		}
	}
	return nil
}

// HostBufferAlign is the alignment the transfer model assumes for host
// buffers (pinned, page-aligned allocations): the microcontroller methods'
// chunking then depends only on the device address.
const HostBufferAlign = 4096

// launchTransfers times the spec's transfers around one launch of
// kernelPs picoseconds: copy-ins one after another ending at the kernel's
// start (0), copy-outs one after another from its end.
func (p *Prepared) launchTransfers(ts *model.TransferSpec, kernelPs int64) ([]trace.Transfer, error) {
	var ins, outs []trace.Transfer
	for _, c := range p.Spec.Transfers {
		b := p.byName[c.Buffer]
		d := model.HostToDevice
		if c.Dir == "out" {
			d = model.DeviceToHost
		}
		size := int64(len(b.Alloc.Data))
		dev := b.Alloc.Base
		host := uint64(HostBufferAlign) + dev%HostBufferAlign // same offset modulo a page: chunking as aligned as the device side
		m := model.TransferMethod(c.Method)
		var ps int64
		var err error
		if c.Method == "" || c.Method == AutoMethod {
			m, ps, err = bestAt(ts, d, host, dev, size)
		} else {
			ps, err = ts.TransferTime(m, d, host, dev, size)
		}
		if err != nil {
			return nil, fmt.Errorf("transfer of %s: %w", c.Buffer, err)
		}
		t := trace.Transfer{Buffer: c.Buffer, Dir: d.String(), Method: string(m), Bytes: size, EndPs: ps}
		if d == model.HostToDevice {
			ins = append(ins, t)
		} else {
			outs = append(outs, t)
		}
	}
	var total int64
	for _, t := range ins {
		total += t.EndPs
	}
	at := -total
	for i := range ins {
		d := ins[i].EndPs
		ins[i].StartPs, ins[i].EndPs = at, at+d
		at += d
	}
	at = kernelPs
	for i := range outs {
		d := outs[i].EndPs
		outs[i].StartPs, outs[i].EndPs = at, at+d
		at += d
	}
	return append(ins, outs...), nil
}

// bestAt is the fastest method for this buffer's addresses (ties: the
// earlier of model.TransferMethods).
func bestAt(ts *model.TransferSpec, d model.Direction, host, dev uint64, size int64) (model.TransferMethod, int64, error) {
	var best model.TransferMethod
	bt := int64(-1)
	for _, m := range model.TransferMethods() {
		ps, err := ts.TransferTime(m, d, host, dev, size)
		if err != nil {
			return "", 0, err
		}
		if bt < 0 || ps < bt {
			best, bt = m, ps
		}
	}
	return best, bt, nil
}

// KernelPs is a launch's duration in picoseconds at the model's core
// clock, rounded to the nearest ps.
func KernelPs(cycles model.Time, coreMHz float64) int64 {
	return int64(math.Round(float64(cycles) * 1e6 / coreMHz))
}

// TransferPs sums the durations of ts.
func TransferPs(ts []trace.Transfer) int64 {
	var s int64
	for _, t := range ts {
		s += t.EndPs - t.StartPs
	}
	return s
}
