// The spin-wait hint: what a thread executes in each round of a busy wait.
#pragma once

namespace takt::os {

/// Tells the CPU that the caller is spinning (x86 PAUSE, Arm YIELD; nothing on other
/// architectures): the sibling hyperthread gets the core's resources meanwhile, and the
/// loop's exit costs no memory-order misprediction.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace takt::os
