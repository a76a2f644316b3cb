/* The run-specification comment convention for kernels written in OpenCL C or LLVM IR: a comment
 *
 *     // reconv-run(saxpy): --global 256 --local 64 --arg y=f32[256]:rand(1)
 *     ; reconv-run(saxpy): ...            (in a .ll file)
 *     // reconv-run: --global 64 ...      (every kernel of the file without its own line)
 *
 * gives the kernel the default run specification that `!run "..."` gives a .rir kernel, so that
 * `reconv run kernel.cl` works without options. The tag must open the comment (prose that
 * mentions it further on is left alone). Several lines for one kernel are joined. The text after
 * the colon is not checked here; `reconv run` parses it (docs/cli.md). */
#include "bridge.h"

#include <stdlib.h>
#include <string.h>

void bridge_run_comments_free(bridge_run_comments *c) {
  for (uint32_t i = 0; i < c->len; i++) {
    free(c->data[i].kernel);
    free(c->data[i].spec);
  }
  rc_vec_free(c);
}

static bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$' || c == '-';
}

static char *dup_range(const char *s, size_t n) {
  char *d = rc_xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static bridge_run_comment *find(bridge_run_comments *out, const char *kernel) {
  for (uint32_t i = 0; i < out->len; i++) {
    const char *k = out->data[i].kernel;
    if ((!k && !kernel) || (k && kernel && strcmp(k, kernel) == 0)) return &out->data[i];
  }
  return NULL;
}

int bridge_scan_run_comments(rc_ctx *ctx, const char *path, const char *text, size_t len,
                             bridge_run_comments *out) {
  static const char tag[] = "reconv-run";
  const size_t taglen = sizeof tag - 1;
  uint32_t line = 1;
  for (size_t pos = 0; pos < len; line++) {
    /* memchr, not a loop: the text is the whole module, tens of megabytes for a big kernel */
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t eol = nl ? (size_t)(nl - text) : len;
    const char *l = text + pos;
    size_t n = eol - pos;
    pos = eol + 1;
    /* the tag opens the comment: after blanks and comment markers (/, ;, *) only, so that
     * prose that mentions reconv-run is not taken for a specification */
    const char *hit = l, *lend = l + n;
    bool marker = false;
    for (; hit < lend && (*hit == ' ' || *hit == '\t' || *hit == '/' || *hit == ';' || *hit == '*'); hit++)
      marker |= *hit != ' ' && *hit != '\t';
    if (!marker || (size_t)(lend - hit) < taglen || memcmp(hit, tag, taglen) != 0) continue;
    uint32_t col = (uint32_t)(hit - l) + 1;
    const char *p = hit + taglen, *end = l + n;
    char *kernel = NULL;
    if (p < end && *p == '(') {
      const char *k = ++p;
      while (p < end && is_ident(*p)) p++;
      if (p == k || p >= end || *p != ')')
        return rc_report(ctx, RC_SEV_ERROR, path, line, col,
                         "malformed reconv-run comment: expected reconv-run(KERNEL): OPTIONS");
      kernel = dup_range(k, (size_t)(p - k));
      p++;
    }
    if (p >= end || *p != ':') {
      free(kernel);
      return rc_report(ctx, RC_SEV_ERROR, path, line, col,
                       "malformed reconv-run comment: expected ':' and the run options after "
                       "reconv-run or reconv-run(KERNEL)");
    }
    p++;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    /* a block comment closed on the same line: drop the closing marker */
    if (end - p >= 2 && end[-2] == '*' && end[-1] == '/') {
      end -= 2;
      while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
    }
    bridge_run_comment *c = find(out, kernel);
    if (c) {
      size_t old = strlen(c->spec), add = (size_t)(end - p);
      c->spec = rc_xrealloc(c->spec, old + add + 2);
      c->spec[old] = ' ';
      memcpy(c->spec + old + 1, p, add);
      c->spec[old + 1 + add] = 0;
      free(kernel);
    } else {
      bridge_run_comment nc = {kernel, dup_range(p, (size_t)(end - p)), line, col};
      rc_vec_push(out, nc);
    }
  }
  return 0;
}
