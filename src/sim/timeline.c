/* A picture of divergence (reconv sim --timeline): one wave's issued instructions from left to right,
 * one row per lane, drawn like the thesis's Figure 1.3. A vector instruction fills the cells of the
 * lanes that were active (blue) and leaves the others pale; scalar and mask instructions, which do
 * not use the lanes, get a mark in a row of their own above them. Each block entry starts with a
 * vertical line and the block's name along the time axis. Runs of equal cells are merged into one
 * rectangle, so the file stays small. */
#include "reconv/sim.h"

#include <stdlib.h>

void rc_timeline_free(rc_timeline *t) {
  free(t->events);
  t->events = NULL;
  t->nevents = t->cap = 0;
}

static void put_escaped(rc_strbuf *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': rc_sb_puts(out, "&amp;"); break;
    case '<': rc_sb_puts(out, "&lt;"); break;
    case '>': rc_sb_puts(out, "&gt;"); break;
    case '"': rc_sb_puts(out, "&quot;"); break;
    default: rc_sb_putc(out, *s); break;
    }
  }
}

enum { LEFT = 70, TOP = 46, ISSUE_ROW = 10, LANE_H = 9, LANE_GAP = 1, LABEL_SPACE = 90 };

/* The state of a cell: 0 nothing drawn, 1 inactive lane, 2 active lane (vector instructions) or
 * 3 scalar, 4 mask (issue row). */
static int lane_cell(const rc_timeline_event *e, uint32_t lane) {
  if (e->kind != RC_ISSUE_VECTOR) return 0;
  return (e->exec >> lane) & 1 ? 2 : 1;
}

static int issue_cell(const rc_timeline_event *e) {
  return e->kind == RC_ISSUE_SCALAR ? 3 : e->kind == RC_ISSUE_MASK ? 4 : 0;
}

static const char *fill_of(int cell) {
  switch (cell) {
  case 1: return "#e6e9ef";
  case 2: return "#2f6fd0";
  case 3: return "#555555";
  default: return "#e08a00";
  }
}

/* Draw one row: merge runs of equal cells into rectangles. */
static void row(rc_strbuf *out, const rc_timeline *t, double cw, int y, int h, int lane) {
  uint32_t start = 0;
  for (uint32_t i = 1; i <= t->nevents; i++) {
    int a = lane >= 0 ? lane_cell(&t->events[start], (uint32_t)lane) : issue_cell(&t->events[start]);
    int b = i < t->nevents ? (lane >= 0 ? lane_cell(&t->events[i], (uint32_t)lane) : issue_cell(&t->events[i])) : -1;
    if (a == b) continue;
    if (a)
      rc_sb_printf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>\n",
                   LEFT + start * cw, y, (i - start) * cw, h, fill_of(a));
    start = i;
  }
}

void rc_timeline_svg(const rc_timeline *t, const rc_kernel *k, const char *title, rc_strbuf *out) {
  uint32_t lanes = 0;
  for (uint32_t l = 0; l < t->lanes; l++)
    if ((t->exists >> l) & 1) lanes = l + 1;
  double cw = t->nevents > 1500 ? 6000.0 / t->nevents : 4.0;
  int width = LEFT + (int)(t->nevents * cw) + 40;
  int lanes_top = TOP + ISSUE_ROW + 4;
  int lanes_bottom = lanes_top + (int)lanes * (LANE_H + LANE_GAP);
  int height = lanes_bottom + LABEL_SPACE + 30;
  if (width < 520) width = 520;
  rc_sb_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                    "font-family=\"sans-serif\" font-size=\"10\">\n", width, height);
  rc_sb_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n<text x=\"8\" y=\"16\" "
                    "font-size=\"12\">", width, height);
  put_escaped(out, title ? title : "");
  rc_sb_puts(out, "</text>\n");
  rc_sb_printf(out, "<text x=\"8\" y=\"32\">%u instructions issued%s; blue: active lanes of vector "
                    "instructions, grey: scalar, orange: mask</text>\n",
               t->nevents, t->truncated ? " (the wave issued more; the rest is not drawn)" : "");
  rc_sb_printf(out, "<text x=\"8\" y=\"%d\">issue</text>\n", TOP + ISSUE_ROW - 1);
  row(out, t, cw, TOP, ISSUE_ROW, -1);
  for (uint32_t l = 0; l < lanes; l++) {
    int y = lanes_top + (int)l * (LANE_H + LANE_GAP);
    if (l % 4 == 0 || l + 1 == lanes)
      rc_sb_printf(out, "<text x=\"8\" y=\"%d\">lane %u</text>\n", y + LANE_H - 1, l);
    if ((t->exists >> l) & 1) row(out, t, cw, y, LANE_H, (int)l);
  }
  /* block entries: a line and the block's name along the time axis */
  for (uint32_t i = 0; i < t->nevents; i++) {
    if (!t->events[i].block_start) continue;
    double x = LEFT + i * cw;
    rc_sb_printf(out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#222222\" "
                      "stroke-width=\"0.6\"/>\n", x, TOP - 2, x, lanes_bottom + 2);
    uint32_t b = t->events[i].block;
    const char *name = k && b < k->nblocks ? k->blocks[b]->name : "?";
    rc_sb_printf(out, "<text transform=\"translate(%.2f,%d) rotate(60)\">", x + 2, lanes_bottom + 6);
    put_escaped(out, name);
    rc_sb_puts(out, "</text>\n");
  }
  rc_sb_printf(out, "<text x=\"%d\" y=\"%d\">issued instructions (time) &#8594;</text>\n", LEFT,
               height - 8);
  rc_sb_puts(out, "</svg>\n");
}
