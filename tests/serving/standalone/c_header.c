/* Built as C99 with only serving/include on the include path, linked to libhone_kernel_cache:
 * the C header is C, and the library reports a missing cache without crashing. */
#include "hone/kernel_cache.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  char error[512];
  hone_cache* cache = hone_cache_open("/nonexistent/hone-cache", "sm_90", 0, error, sizeof error);
  if (cache != NULL || strstr(error, "manifest.json: cannot be read") == NULL) {
    fprintf(stderr, "FAILED: expected a refusal, got: %s\n", error);
    return 1;
  }
  if (hone_cache_format_version() != 1) return 1;
  printf("ok\n");
  return 0;
}
