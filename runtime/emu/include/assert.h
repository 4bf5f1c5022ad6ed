// The emu device's <assert.h> (and so <cassert>): a failed assert ends the launch with a fault
// naming the thread, as a device-side assert traps, instead of aborting the whole process.
// Like the standard header it has no include guard: NDEBUG is honoured at each inclusion.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
extern "C" __attribute__((noreturn)) void hone_emu_assert_fail(const char* expr, const char* file, unsigned int line,
                                                               const char* function);
#define assert(e) ((e) ? (void)0 : ::hone_emu_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
