/* Graphviz DOT pictures of kernels (see rc_dot_kernel in ir.h). */
#include "reconv/ir.h"

#include <inttypes.h>
#include <string.h>

static void dot_escape(rc_strbuf *out, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\' || *s == '{' || *s == '}' || *s == '<' || *s == '>' || *s == '|')
      rc_sb_putc(out, '\\');
    if (*s == '\n') {
      rc_sb_puts(out, "\\l");
      continue;
    }
    rc_sb_putc(out, *s);
  }
}

void rc_dot_kernel(const rc_kernel *k, const rc_dot_opts *o, rc_strbuf *out) {
  rc_dot_opts none = {0};
  if (!o) o = &none;
  rc_sb_printf(out, "digraph \"%s\" {\n", k->name);
  rc_sb_puts(out, "  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n");
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_block *blk = k->blocks[b];
    rc_sb_printf(out, "  b%u [label=\"", b);
    dot_escape(out, blk->name);
    if (o->show_instructions) {
      rc_sb_puts(out, ":\\l");
      for (const rc_instr *i = blk->first; i; i = i->next) {
        rc_strbuf line;
        rc_sb_init(&line);
        rc_print_instr(i, &line);
        rc_sb_puts(out, "  ");
        dot_escape(out, line.data ? line.data : "");
        rc_sb_puts(out, "\\l");
        rc_sb_free(&line);
      }
    }
    rc_sb_putc(out, '"');
    if (o->show_instructions) rc_sb_puts(out, ", align=left");
    /* one style attribute: Graphviz keeps only the last one given */
    bool inserted = (blk->bflags & RC_BLOCK_SYNTHETIC) != 0;
    bool divergent = o->divergent_branch && o->divergent_branch[b];
    if (inserted || divergent)
      rc_sb_printf(out, ", style=\"%s%s%s\"", inserted ? "dashed" : "", inserted && divergent ? "," : "",
                   divergent ? "filled" : "");
    if (divergent) rc_sb_puts(out, ", fillcolor=\"#f4a6a6\"");
    rc_sb_puts(out, "];\n");
  }
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (!t) continue;
    bool conditional = t->ntargets > 1;
    bool uniform = conditional && o->divergent_branch && !o->divergent_branch[b];
    for (uint32_t e = 0; e < t->ntargets; e++) {
      rc_sb_printf(out, "  b%u -> b%u", b, t->targets[e]->id);
      rc_strbuf attrs;
      rc_sb_init(&attrs);
      if (t->op == RC_OP_BR || t->op == RC_OP_BREXECZ)
        rc_sb_printf(&attrs, "label=\"%s\"", t->op == RC_OP_BREXECZ ? (e ? "exec" : "execz") : (e ? "F" : "T"));
      else if (t->op == RC_OP_SWITCH)
        e ? rc_sb_printf(&attrs, "label=\"%" PRId64 "\"", t->cases[e - 1])
          : rc_sb_puts(&attrs, "label=\"default\"");
      if (uniform) rc_sb_printf(&attrs, "%sstyle=dotted", attrs.len ? ", " : "");
      if (conditional && !uniform && o->primary_successor && o->primary_successor[b] == t->targets[e]->id)
        rc_sb_printf(&attrs, "%spenwidth=2.5", attrs.len ? ", " : "");
      if (attrs.len) rc_sb_printf(out, " [%s]", attrs.data);
      rc_sb_puts(out, ";\n");
      rc_sb_free(&attrs);
    }
  }
  if (o->divergent_branch && !o->no_legend) { /* what the colours and lines mean */
    rc_sb_puts(out, "  subgraph cluster_legend {\n"
                    "    label=\"legend\"; fontname=\"Helvetica\"; style=rounded; color=gray;\n"
                    "    legend_divergent [label=\"divergent branch\", style=filled, fillcolor=\"#f4a6a6\"];\n"
                    "    legend_inserted [label=\"inserted block (flow, virtual)\", style=dashed];\n"
                    "    legend_from [label=\"\", shape=point]; legend_to [label=\"\", shape=point];\n"
                    "    legend_from -> legend_to [style=dotted, label=\"uniform branch\"];\n");
    if (o->primary_successor)
      rc_sb_puts(out, "    legend_from2 [label=\"\", shape=point]; legend_to2 [label=\"\", shape=point];\n"
                      "    legend_from2 -> legend_to2 [penwidth=2.5, label=\"to the primary successor\"];\n");
    rc_sb_puts(out, "  }\n");
  }
  rc_sb_puts(out, "}\n");
}
