/* reconv report: one self-contained HTML page that tells a kernel's story: its source, its CFG
 * before and after each strategy (SVG, drawn by Graphviz, one legend), the comparison of every
 * strategy with the cheapest row marked and the cost model in one paragraph, the wave timeline of
 * the default strategy, and its per-block table with each block's SIMD efficiency as a bar. No
 * script and no network: inline SVG and a few lines of CSS. Every kernel of the file gets a section
 * (one with --kernel). */
#include "cli_spec.h"
#include "commands.h"
#include "compare_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "usage: reconv report [options] FILE [run specification]\n\n"
    "Write one self-contained HTML page about the kernels of FILE: the source, the CFG before and\n"
    "after each strategy of reconv compare (SVG; Graphviz's dot draws them), the comparison table\n"
    "with the cheapest strategy marked, the wave timeline of the default strategy\n"
    "(" RC_COMPARE_DEFAULT ") and its per-block SIMD efficiency. Every row is checked against the\n"
    "thread-level interpreter, as in reconv compare. Open the page in any browser: it needs no\n"
    "network and runs no script.\n"
    "Exit status: 0 when the page was written and every strategy is equivalent, 1 when one is not\n"
    "(the page is written all the same) or on bad input, 2 wrong usage.\n\n"
    "options:\n"
    "  -o, --output FILE   write the page to FILE (default: standard output)\n"
    "  --kernel NAME       only this kernel (default: every thread-level kernel of FILE)\n"
    COMPARE_CLOCK_HELP
    "                      the page then puts the measured time beside the modelled count of\n"
    "                      every row, in the table and in a bar chart of both\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n\n";

static void html_escape(rc_strbuf *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) switch (s[i]) {
    case '<': rc_sb_puts(out, "&lt;"); break;
    case '>': rc_sb_puts(out, "&gt;"); break;
    case '&': rc_sb_puts(out, "&amp;"); break;
    case '"': rc_sb_puts(out, "&quot;"); break;
    case '\0': break;
    default: rc_sb_putc(out, s[i]); break;
    }
}

static void html_text(rc_strbuf *out, const char *s) { html_escape(out, s, strlen(s)); }

/* DOT drawn as inline SVG by Graphviz (`dot -Tsvg`), the XML prologue left out; false when
 * Graphviz is not there or fails. */
static bool dot_to_svg(const char *dot, rc_strbuf *svg) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/reconv-report-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return false;
  size_t len = strlen(dot);
  bool ok = write(fd, dot, len) == (ssize_t)len;
  close(fd);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' 2>/dev/null", path);
  FILE *p = ok ? popen(cmd, "r") : NULL;
  rc_strbuf text = {0};
  if (p) {
    ok = rc_sb_read_all(&text, p);
    ok = pclose(p) == 0 && ok;
  } else {
    ok = false;
  }
  unlink(path);
  const char *start = ok && text.data ? strstr(text.data, "<svg") : NULL;
  if (start) rc_sb_puts(svg, start);
  rc_sb_free(&text);
  return start != NULL;
}

/* One drawing: a figure with a caption; the DOT text itself when Graphviz cannot draw it. */
static void figure(rc_strbuf *out, const rc_kernel *k, const char *caption) {
  rc_strbuf dot = {0}, svg = {0};
  cli_dot_analysis(k, 0, false, false, &dot);
  rc_sb_puts(out, "<figure class=\"cfg\">");
  if (dot_to_svg(dot.data ? dot.data : "", &svg)) {
    rc_sb_puts(out, svg.data);
  } else {
    rc_sb_puts(out, "<p class=\"note\">Graphviz's <code>dot</code> is not installed; the graph in DOT:</p><pre>");
    html_text(out, dot.data ? dot.data : "");
    rc_sb_puts(out, "</pre>");
  }
  rc_sb_puts(out, "<figcaption>");
  html_text(out, caption);
  rc_sb_printf(out, " (%u blocks)</figcaption></figure>\n", k->nblocks);
  rc_sb_free(&dot);
  rc_sb_free(&svg);
}

/* The drawings' legend, once: a graph of what the colours and lines mean. */
static void legend(rc_strbuf *out) {
  static const char dot[] =
      "digraph legend { rankdir=LR; node [shape=box, fontname=\"Helvetica\"]; edge [fontname=\"Helvetica\"];\n"
      "  d [label=\"divergent branch\", style=filled, fillcolor=\"#f4a6a6\"];\n"
      "  i [label=\"inserted block (flow, virtual)\", style=dashed];\n"
      "  a [label=\"\", shape=point]; b [label=\"\", shape=point]; a -> b [style=dotted, label=\"uniform branch\"];\n"
      "  c [label=\"\", shape=point]; e [label=\"\", shape=point]; c -> e [penwidth=2.5, label=\"to the primary successor\"];\n"
      "}\n";
  rc_strbuf svg = {0};
  if (dot_to_svg(dot, &svg)) {
    rc_sb_puts(out, "<figure class=\"cfg legend\">");
    rc_sb_puts(out, svg.data);
    rc_sb_puts(out, "<figcaption>legend</figcaption></figure>\n");
  }
  rc_sb_free(&svg);
}

static void cell_u64(rc_strbuf *out, const char *key, uint64_t v) {
  rc_sb_printf(out, "<td data-key=\"%s\">%" PRIu64 "</td>", key, v);
}

static bool is_measured_row(const rc_compare_row *r) {
  return r->st->mode == RC_MACHINE_NATIVE_SCALAR || r->st->mode == RC_MACHINE_POCL;
}

static void time_cell(rc_strbuf *out, const rc_compare_row *r) {
  if (r->native.ran) rc_sb_printf(out, "<td data-key=\"native_ns_per_item\">%.2f</td>", r->native.ns_per_item);
  else rc_sb_puts(out, "<td data-key=\"native_ns_per_item\">-</td>");
}

static void compare_table(rc_strbuf *out, const rc_run_spec *s, const rc_compare_row *rows, int n, bool clock) {
  int best = rc_compare_best(rows, n);
  rc_sb_printf(out, "<table class=\"compare\"><thead><tr><th></th><th>strategy</th><th>blocks</th><th>flow</th>"
                  "<th>vector</th><th>scalar</th><th>mask</th><th>issued</th><th>SIMD eff</th><th>entered</th>"
                  "<th>dup</th>%s<th>verdict</th></tr></thead><tbody>\n", clock ? "<th>ns/item</th>" : "");
  uint64_t total = 0;
  for (int i = 0; i < n; i++) {
    const rc_compare_row *r = &rows[i];
    char v[700];
    rc_sb_printf(out, "<tr data-strategy=\"%s\"%s><td>%s</td><td>", r->st->name, i == best ? " class=\"best\"" : "",
                 i == best ? "&#9733;" : "");
    html_text(out, r->st->name);
    rc_sb_puts(out, "</td>");
    if (r->ran && !is_measured_row(r)) {
      const rc_run_stats *st = &r->res.stats;
      cell_u64(out, "blocks", rc_count_blocks(r->res.ran, 0));
      cell_u64(out, "flow_blocks", rc_count_blocks(r->res.ran, RC_BLOCK_FLOW | RC_BLOCK_GUARD));
      cell_u64(out, "vector_instructions", st->vector_instrs);
      cell_u64(out, "scalar_instructions", st->scalar_instrs);
      cell_u64(out, "mask_instructions", st->mask_instrs);
      cell_u64(out, "issued_instructions", rc_compare_issued(r));
      rc_sb_printf(out, "<td data-key=\"simd_efficiency\">%.1f%%</td>", 100.0 * rc_simd_efficiency(st));
      cell_u64(out, "blocks_entered", st->blocks_entered);
      cell_u64(out, "duplicate_blocks", st->duplicate_blocks);
      total += rc_compare_issued(r);
    } else {
      rc_sb_puts(out, "<td colspan=\"9\">-</td>");
    }
    if (clock) time_cell(out, r);
    rc_sb_printf(out, "<td class=\"%s\">", rc_compare_row_ok(r) ? "ok" : "bad");
    html_text(out, rc_compare_verdict(r, v, sizeof v));
    rc_sb_puts(out, "</td></tr>\n");
  }
  rc_sb_printf(out, "</tbody><tfoot><tr><td></td><td>total of the rows</td><td colspan=\"5\"></td>"
                    "<td data-key=\"total_issued\">%" PRIu64 "</td><td colspan=\"%d\"></td></tr></tfoot></table>\n",
               total, clock ? 5 : 4);
  rc_sb_puts(out, "<p class=\"explain\"><b>The cost model.</b> A row's cost is <i>issued</i>: every instruction "
                  "the waves issue, vector, scalar or mask, counted as one issue slot each, as a GPU's "
                  "instruction pointer steps through them, by the rules of an AMD GCN-like machine "
                  "(reading a register or exec, a ballot and a copy that register coalescing removes "
                  "issue nothing; docs/cost.md). <i>SIMD eff</i> is the share of lanes a vector "
                  "instruction keeps busy (active lanes per vector instruction over the wave size");
  uint64_t threads = rc_run_spec_threads(s);
  if (threads < s->wave)
    rc_sb_printf(out, "; with %" PRIu64 " threads on a %u-lane wave it cannot exceed %.1f%%", threads, s->wave,
                 100.0 * (double)threads / s->wave);
  rc_sb_puts(out, "). <i>dup</i> counts blocks a wave enters again while lanes that ran them wait. &#9733; marks "
                  "the cheapest strategy whose every thread ran the same blocks and left the same memory as "
                  "on the thread-level interpreter (<i>verdict</i>).</p>\n");
}

static void block_table(rc_strbuf *out, const rc_compare_row *r) {
  const rc_run_stats *st = &r->res.stats;
  const rc_kernel *k = r->res.ran;
  rc_sb_puts(out, "<table class=\"blocks\"><thead><tr><th>block</th><th>entered</th><th>vector</th>"
                  "<th>active lanes</th><th>SIMD efficiency</th></tr></thead><tbody>\n");
  for (uint32_t b = 0; b < k->nblocks && b < st->nblocks; b++) {
    double eff = st->block_vector_instrs[b] && st->wave_size
                     ? (double)st->block_active_lane_instrs[b] / ((double)st->block_vector_instrs[b] * st->wave_size)
                     : 0.0;
    rc_sb_puts(out, "<tr><td>");
    html_text(out, k->blocks[b]->name);
    if (k->blocks[b]->bflags & RC_BLOCK_FLOW) rc_sb_puts(out, " <span class=\"tag\">flow</span>");
    rc_sb_printf(out, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td>", st->block_entries[b],
                 st->block_vector_instrs[b], st->block_active_lane_instrs[b]);
    rc_sb_printf(out, "<td><span class=\"bar\"><span style=\"width:%.1f%%\"></span></span> %.1f%%</td></tr>\n",
                 100.0 * eff, 100.0 * eff);
  }
  rc_sb_puts(out, "</tbody></table>\n");
}

/* The bar chart of model and clock: per row a bar of its issued count (the model, as a share of
 * the largest) and one of its measured ns/item (the clock, as a share of the slowest), so that a
 * row the model calls cheap and the clock calls dear stands out. */
static void clock_chart(rc_strbuf *out, const rc_compare_row *rows, int n) {
  uint64_t max_issued = 0;
  double max_ns = 0;
  int shown = 0;
  for (int i = 0; i < n; i++) {
    const rc_compare_row *r = &rows[i];
    if (r->ran && !is_measured_row(r) && rc_compare_issued(r) > max_issued) max_issued = rc_compare_issued(r);
    if (r->native.ran && r->native.ns_per_item > max_ns) max_ns = r->native.ns_per_item;
    shown += r->native.ran || (r->ran && !is_measured_row(r));
  }
  if (!shown || max_ns <= 0) {
    rc_sb_puts(out, "<p class=\"note\">No row ran on the clock: the table says why.</p>\n");
    return;
  }
  const int label = 230, bar = 420, row_h = 30, top = 28;
  int h = top + shown * row_h + 10;
  rc_sb_printf(out, "<figure class=\"clock\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                    "viewBox=\"0 0 %d %d\" font-family=\"Helvetica,Arial,sans-serif\" font-size=\"12\">\n",
               label + bar + 120, h, label + bar + 120, h);
  rc_sb_printf(out, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"10\" fill=\"#9aa7b8\"/><text x=\"%d\" y=\"15\">"
                    "modelled: issued instructions</text>\n", label, label + 16);
  rc_sb_printf(out, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"10\" fill=\"#d6804a\"/><text x=\"%d\" y=\"15\">"
                    "measured: ns per work-item</text>\n", label + 210, label + 226);
  int y = top;
  for (int i = 0; i < n; i++) {
    const rc_compare_row *r = &rows[i];
    bool modelled = r->ran && !is_measured_row(r) && max_issued;
    if (!modelled && !r->native.ran) continue;
    rc_sb_printf(out, "<g data-strategy=\"%s\"><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", r->st->name, label - 8,
                 y + 16);
    html_text(out, r->st->name);
    rc_sb_puts(out, "</text>");
    if (modelled) {
      double w = bar * (double)rc_compare_issued(r) / (double)max_issued;
      rc_sb_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"11\" fill=\"#9aa7b8\"/>"
                        "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%" PRIu64 "</text>",
                   label, y + 2, w, label + w + 4, y + 11, rc_compare_issued(r));
    }
    if (r->native.ran) {
      double w = bar * r->native.ns_per_item / max_ns;
      rc_sb_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"11\" fill=\"#d6804a\"/>"
                        "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%.2f ns</text>",
                   label, y + 14, w, label + w + 4, y + 23, r->native.ns_per_item);
    }
    rc_sb_puts(out, "</g>\n");
    y += row_h;
  }
  rc_sb_puts(out, "</svg><figcaption>Model and clock: each bar as a share of the largest of its kind");
  double rho = rc_compare_model_clock_correlation(rows, n);
  if (!isnan(rho)) rc_sb_printf(out, "; rank correlation (Spearman) of the wave rows' issued counts and times: %.2f", rho);
  rc_sb_puts(out, ".</figcaption></figure>\n");
}

static const char style[] =
    "<style>\n"
    "body{font-family:Helvetica,Arial,sans-serif;margin:2em auto;max-width:72em;color:#222;line-height:1.4}\n"
    "h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.1em}\n"
    "pre{background:#f6f6f6;padding:.8em;overflow:auto;font-size:.85em}\n"
    "table{border-collapse:collapse;font-size:.9em;margin:1em 0}\n"
    "th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}\n"
    "table.compare td:nth-child(2),table.compare th:nth-child(2),table.blocks td:first-child{text-align:left}\n"
    "tr.best{background:#eaf6ea;font-weight:bold}td.ok{color:#176117}td.bad{color:#a11}\n"
    ".cfgs{display:flex;flex-wrap:wrap;gap:1em}figure.cfg{margin:0;border:1px solid #ddd;padding:.5em}\n"
    "figure.cfg svg{max-width:34em;height:auto}figcaption{font-size:.85em;color:#555;text-align:center}\n"
    ".bar{display:inline-block;width:8em;height:.8em;background:#eee;vertical-align:middle}\n"
    ".bar span{display:block;height:100%;background:#4a8bd6}\n"
    ".tag{font-size:.75em;background:#ddd;padding:0 .3em}.note,.explain{font-size:.9em;color:#444}\n"
    ".timeline svg{max-width:100%;height:auto}\n"
    "</style>\n";

/* The kernel's section; returns whether every strategy was equivalent. */
static bool kernel_section(rc_ctx *ctx, rc_strbuf *out, rc_kernel *k, const rc_run_spec *s, const rc_compare_opts *co) {
  rc_sb_puts(out, "<h2>Kernel @");
  html_text(out, k->name);
  rc_sb_printf(out, "</h2>\n<p>%" PRIu64 " threads in waves of %u lanes.</p>\n", rc_run_spec_threads(s), s->wave);
  rc_compare_row *rows = rc_xcalloc((size_t)rc_compare_nstrategies, sizeof *rows);
  int n = rc_compare_run_opts(ctx, k, s, co, rows);
  rc_sb_puts(out, "<h3>Every strategy on the same kernel</h3>\n");
  compare_table(out, s, rows, n, co->native);
  if (co->native) {
    uint64_t items = 0;
    for (int i = 0; i < n; i++)
      if (rows[i].native.items) items = rows[i].native.items;
    rc_sb_printf(out, "<h3>Modelled and measured</h3>\n<p class=\"explain\"><i>ns/item</i>: nanoseconds per "
                      "work-item of the fastest of %u runs on a launch of %" PRIu64 " work-items, on this "
                      "machine: the wave rows on the native wave backend (W lanes in the CPU's vector "
                      "registers, docs/native.md), native-scalar one work-item at a time as LLVM -O2 compiles "
                      "the kernel for this CPU, pocl the OpenCL C kernel on pocl; the memory of each checked "
                      "against the interpreter's.</p>\n",
                 co->repeat, items);
    clock_chart(out, rows, n);
  }

  rc_sb_puts(out, "<h3>The CFG before and after each strategy</h3>\n<div class=\"cfgs\">\n");
  legend(out);
  figure(out, k, "the input");
  for (int i = 0; i < n; i++) {
    const rc_strategy *st = rows[i].st;
    if (st->mode != RC_MACHINE_WAVE) continue;
    rc_ctx quiet = *ctx;
    quiet.diag = NULL; /* a strategy that failed says so in the table already */
    quiet.diag_user = NULL;
    rc_module *own = NULL;
    rc_kernel *c = rc_transform_copy(&quiet, k, st->before_llvm, st->llvm_passes, st->thread_passes, &own, NULL);
    if (c) {
      char caption[200];
      if (st->thread_passes) snprintf(caption, sizeof caption, "after %s", st->thread_passes);
      else if (st->before_llvm)
        snprintf(caption, sizeof caption, "after %s and LLVM's passes (%s)", st->before_llvm, st->llvm_passes);
      else snprintf(caption, sizeof caption, "after LLVM's passes (%s)", st->llvm_passes ? st->llvm_passes : "none");
      figure(out, c, caption);
    }
    if (own) rc_module_free(own);
  }
  rc_sb_puts(out, "</div>\n<p class=\"note\">Red: a block ending in a divergent branch; bold: the edge to its "
                  "primary successor (the successor that post-dominates it, thesis Def. 15); dotted: a uniform "
                  "branch; dashed: a block a transform inserted (flow, virtual). Drawn from the thread-level "
                  "kernel each strategy lowers.</p>\n");

  for (int i = 0; i < n; i++) {
    const rc_compare_row *r = &rows[i];
    if (strcmp(r->st->name, RC_COMPARE_DEFAULT) != 0 || !r->ran) continue;
    rc_sb_puts(out, "<h3>The default strategy, " RC_COMPARE_DEFAULT ", on the wave</h3>\n<div class=\"timeline\">");
    rc_strbuf tl = {0};
    rc_timeline_svg(&r->res.timeline, r->res.ran, "wave 0: lanes against issued instructions", &tl);
    const char *svg = tl.data ? strstr(tl.data, "<svg") : NULL;
    if (svg) rc_sb_puts(out, svg);
    rc_sb_free(&tl);
    rc_sb_puts(out, "</div>\n<p class=\"note\">Wave 0, instruction by instruction: a column per issued "
                    "instruction, a row per lane, filled where the lane is active.</p>\n");
    block_table(out, r);
  }
  bool all = true;
  for (int i = 0; i < n; i++) all &= rc_compare_row_ok(&rows[i]);
  rc_compare_rows_free(rows, n);
  free(rows);
  return all;
}

/* The file's text, shown as the source of its kernels (bitcode is not text). */
static void source_section(rc_ctx *ctx, rc_strbuf *out, const char *file) {
  size_t n = strlen(file);
  if (n > 3 && strcmp(file + n - 3, ".bc") == 0) return;
  size_t len;
  rc_ctx quiet = *ctx;
  quiet.diag = NULL;
  char *text = strcmp(file, "-") == 0 ? NULL : cli_read_file(&quiet, file, &len);
  if (!text) return;
  rc_sb_puts(out, "<h2>Source</h2>\n<pre class=\"source\">");
  html_escape(out, text, len);
  rc_sb_puts(out, "</pre>\n");
  free(text);
}

int cmd_report(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *kname = NULL;
  compare_clock_words clock;
  compare_clock_words_init(&clock);
  cli_input_opts in = {0};
  cli_spec_words w = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      fputs(cli_spec_help, stdout);
      cli_spec_words_free(&w);
      return EXIT_OK;
    }
    if ((r = cli_opt("report", argc, argv, &i, "-o", "--output", &out)) != 0 ||
        (r = cli_opt("report", argc, argv, &i, NULL, "--kernel", &kname)) != 0 ||
        (r = cli_input_opt("report", argc, argv, &i, &in)) != 0 ||
        (r = compare_clock_opt("report", argc, argv, &i, &clock)) != 0 ||
        (r = cli_spec_opt("report", argc, argv, &i, &w)) != 0) {
      if (r < 0) {
        cli_spec_words_free(&w);
        return EXIT_USAGE;
      }
    } else if (a[0] == '-' && a[1]) {
      cli_spec_words_free(&w);
      return cli_usage_error("report", "unknown option '%s'", a);
    } else if (file) {
      cli_spec_words_free(&w);
      return cli_usage_error("report", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file || compare_clock_check("report", &clock) != 0) {
    cli_spec_words_free(&w);
    return file ? EXIT_USAGE : cli_usage_error("report", "no input file");
  }
  rc_llvm_import_opts io;
  cli_import_opts(&in, &io);
  rc_compare_opts co = {.timeline = true, .native = clock.native, .scale = (uint32_t)clock.scale,
                        .repeat = (uint32_t)clock.repeat, .threads = (uint32_t)clock.threads, .vector_math = clock.vector_math, .path = file,
                        .import = &io};
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in);
  rc_kernel *only = m && kname ? cli_pick_kernel(&ctx, m, kname) : NULL;
  int rc = m && (!kname || only) ? EXIT_OK : EXIT_BAD_INPUT;
  rc_strbuf page = {0};
  bool all = true;
  uint32_t sections = 0;
  if (rc == EXIT_OK) {
    rc_sb_puts(&page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>reconv report: ");
    html_text(&page, file);
    rc_sb_puts(&page, "</title>\n");
    rc_sb_puts(&page, style);
    rc_sb_puts(&page, "</head><body>\n<h1>reconv report: ");
    html_text(&page, file);
    rc_sb_puts(&page, "</h1>\n<p class=\"note\">How each way of running divergent control flow on a SIMD wave "
                      "does on this code: the IPDOM reconvergence stack, reconverge (Wahlster 2018) with each "
                      "block ordering followed by lower, the sweep lowerings blockip (Beignet's per-lane block "
                      "IPs) and full-linearize, and LLVM's StructurizeCFG followed by lower, all "
                      "counted by one cost model and checked against reconv's thread-level interpreter.</p>\n");
    source_section(&ctx, &page, file);
    for (uint32_t i = 0; i < m->nkernels && rc == EXIT_OK; i++) {
      rc_kernel *k = m->kernels[i];
      if ((only && k != only) || k->level != RC_LEVEL_THREAD || k->is_function) continue;
      rc_run_spec s;
      rc_run_spec_init(&s);
      if (cli_spec_build(&ctx, &s, k, &w) != 0) rc = EXIT_BAD_INPUT;
      else all &= kernel_section(&ctx, &page, k, &s, &co);
      rc_run_spec_free(&s);
      sections++;
    }
    if (rc == EXIT_OK && !sections) {
      rc_error(&ctx, "%s has no thread-level kernel to report on", file);
      rc = EXIT_BAD_INPUT;
    }
    rc_sb_puts(&page, "</body></html>\n");
  }
  if (rc == EXIT_OK) {
    const char *inputs[] = {file};
    rc = cli_write_string(out, page.data, page.len, inputs, 1);
    if (rc == EXIT_OK && !all) rc = EXIT_BAD_INPUT;
  }
  rc_sb_free(&page);
  cli_spec_words_free(&w);
  if (m) rc_module_free(m);
  return rc;
}
