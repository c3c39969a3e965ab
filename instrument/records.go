package instrument

import "github.com/ptxtrace/ptxtrace/ptx"

// A record write has three parts: the leader lane's selection (register
// work only), the reservation (one atomic on the warp's count) and the
// stores. A probe that waits for completion (a consumer or a fence) puts
// the selection before its begin timer read, outside the timed interval,
// so that after completion the warp executes only the atomic and the
// stores; nothing of it lies between the access and the end read, and
// the selection's registers and predicate (r1, r2, r3, p2) are untouched
// by the access, its consumer and the timer reads. Naive probes keep the
// whole write after the end read (their end read follows the access's
// issue: there is no completion to wait for).

// reserveSetup selects the warp's leader lane (%__pt_p2, the lowest
// active lane; the active mask in r2) and sets dst to -1, the slot that
// lanes other than the leader keep.
func (k *kernel) reserveSetup(c *code, dst ptx.Operand) {
	k.leader(c)
	k.op(c, "mov.u32", dst, imm(-1))
}

// reserveAtomic makes the leader lane selected by reserveSetup take n
// record slots with one atomic on the warp's count (dst = the first).
func (k *kernel) reserveAtomic(c *code, dst ptx.Operand, n int) {
	k.op(c, "atom.add.u32", dst, addrOff(a(0), 0), imm(int64(n)))
	c.when(2, false)
}

// storeRecords writes the records ids (timestamp slots 1.. in order) of
// the reservation in r1 that fit the capacity, one store each.
func (k *kernel) storeRecords(c *code, ids []uint32, slots []int) {
	for i, id := range ids {
		if off, ok := k.recordAddr(c, r(1), i, a(2), 3); ok {
			k.storeAt(c, a(2), off, 3, id, slots[i])
		}
	}
}
