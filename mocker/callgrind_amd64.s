#include "textflag.h"

// func callgrindToggleCollect()
//
// Valgrind's client request CALLGRIND_TOGGLE_COLLECT (valgrind.h's amd64 sequence): RAX
// points at {request, 5 arguments}, the four rotations of RDI (a no-op: 128 bits in all) and
// xchg rbx,rbx mark it for valgrind; outside valgrind it does nothing.
TEXT ·callgrindToggleCollect(SB), NOSPLIT, $48-0
	MOVQ $0x43540002, AX // VG_USERREQ_TOOL_BASE('C','T') + 2: VG_USERREQ__TOGGLE_COLLECT
	MOVQ AX, 0(SP)
	MOVQ $0, 8(SP)
	MOVQ $0, 16(SP)
	MOVQ $0, 24(SP)
	MOVQ $0, 32(SP)
	MOVQ $0, 40(SP)
	LEAQ 0(SP), AX
	MOVQ $0, DX
	ROLQ $3, DI
	ROLQ $13, DI
	ROLQ $61, DI
	ROLQ $51, DI
	XCHGQ BX, BX
	RET
