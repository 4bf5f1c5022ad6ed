#include "fiber_switch.hpp"

#include <cstdint>

#if !defined(__x86_64__)
#error "emu's fiber switch is written for x86-64"
#endif

// The switch pushes rbp, rbx, r12-r15 and pops them in reverse: a suspended stack holds, from
// its saved pointer up, r15, r14, r13, r12, rbx, rbp and the address to return to.
// The start frame returns into hone_emu_fiber_start, which calls r15(r14) on a 16-byte aligned
// stack; unwinders stop there (its return address is undefined).
asm(R"(
  .text
  .globl hone_emu_fiber_switch
  .hidden hone_emu_fiber_switch
  .type hone_emu_fiber_switch, @function
  .p2align 4
hone_emu_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size hone_emu_fiber_switch, .-hone_emu_fiber_switch

  .type hone_emu_fiber_start, @function
  .p2align 4
hone_emu_fiber_start:
  .cfi_startproc
  .cfi_undefined rip
  movq %r14, %rdi
  call *%r15
  ud2
  .cfi_endproc
  .size hone_emu_fiber_start, .-hone_emu_fiber_start
)");

extern "C" void hone_emu_fiber_start();

namespace hone::emu {

void* fiber_start_frame(void* stack_top, void (*entry)(void*), void* arg) {
  auto* top = reinterpret_cast<std::uintptr_t*>(reinterpret_cast<std::uintptr_t>(stack_top) & ~std::uintptr_t{15});
  std::uintptr_t* sp = top - 9;  // 72 bytes: after the pops and the ret, rsp is top - 16, aligned
  sp[0] = reinterpret_cast<std::uintptr_t>(entry);  // r15
  sp[1] = reinterpret_cast<std::uintptr_t>(arg);    // r14
  sp[2] = sp[3] = sp[4] = sp[5] = 0;                // r13, r12, rbx, rbp
  sp[6] = reinterpret_cast<std::uintptr_t>(&hone_emu_fiber_start);
  sp[7] = sp[8] = 0;
  return sp;
}

}  // namespace hone::emu
