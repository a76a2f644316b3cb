/* The regions of the primary successors, for lower (lower.c's rejoin sets) and the wave-level
 * divergence (lower_divergence.c): for a primary successor B, the region R(B) is every block
 * reachable from P(B), the divergent branches whose primary successor is B, without passing
 * through B. Regions nest deeply on reconverge's outputs (a region that wraps a loop holds most of
 * the loop, and every branch in the loop has one), so walking every region block by block is
 * quadratic in the kernel. This module visits the primary successors inner regions first and
 * lets a later walk take a region it has already made as one unit (lower_regions.c says when that
 * is exact); the sets it answers with are exactly the block-by-block ones. */
#ifndef RECONV_LOWER_REGIONS_H
#define RECONV_LOWER_REGIONS_H

#include "reconv/analysis.h"

typedef struct lower_regions_entry {
  uint32_t y, next; /* a block where the current walk entered a unit; the unit's previous one */
} lower_regions_entry;

typedef struct lower_regions {
  const rc_cfg *g;
  const rc_domtree *pdom;
  const uint32_t *primary; /* per block: its primary successor (a divergent branch), else RC_NONE */
  uint32_t nb, ngroups;
  uint32_t *order, norder, next; /* the primary successors, post-dominator tree post-order */
  /* items: blocks are ids 0 .. nb-1, units (regions made) nb + 1 + their index */
  uint32_t *uf;              /* union-find parent: the unit that took a block or unit in */
  uint32_t *up;              /* the same, never shortened (RC_NONE at the top) */
  uint32_t *ufdist;          /* per item: how many parents up (up) its uf is */
  uint32_t *gexit;           /* per unit: its B */
  uint32_t *gstamp, *gopen;  /* per unit, the current walk: entered (and lies in the region), opened */
  uint32_t *ghead;           /* per unit, the current walk: its last entry in recs */
  uint32_t *ent_start, *p_start, *nc_start; /* per unit: its entries (pairs), K, unjudged blocks */
  rc_u32vec ents, ps, ncs;
  RC_VEC(uint8_t) entgen;    /* per entry of a unit: all of the unit's K can be reached from it */
  uint32_t *stamp, *estamp, *elast, *p0stamp, cur; /* per block, the current walk */
  RC_VEC(lower_regions_entry) recs;
  uint32_t *cache, *cdist, *cstamp;   /* per item, the current walk: item_of's last answer, its distance */
  RC_VEC(uint32_t *) levels;          /* levels[k - 1][x]: the 2^k-th ancestor of item x (up) */
  uint32_t *istamp, wcur;             /* per item: the backward walks of make_unit ... */
  uint32_t *icount, *icount_at, fcur; /* ... and how many members of P it reaches */
  /* the current region, after lower_regions_next */
  uint32_t B;
  bool compressed, pending;
  rc_u32vec blocks; /* the region's blocks in no unit of it; blocks[0 .. np) is P(B) */
  uint32_t np;
  rc_u32vec units;  /* the units that lie wholly in the region */
  rc_u32vec ent;    /* its entries: pairs (x, y), y in the region, x outside it (B included) */
  rc_u32vec opened;  /* the units at the top that the walk opened */
  rc_u32vec work, tmp;
  /* statistics */
  uint64_t nvisited, nopened, nuncounted;
} lower_regions;

void lower_regions_init(lower_regions *r, const rc_cfg *g, const rc_domtree *pdom, const uint32_t *primary);
void lower_regions_free(lower_regions *r);
/* The next primary successor B, with its region made; RC_NONE when there is none left. */
uint32_t lower_regions_next(lower_regions *r);
/* Is block z in the current region? */
bool lower_regions_member(lower_regions *r, uint32_t z);
/* Is block y in P0 of the current region (a member of P without a predecessor in the region)? */
bool lower_regions_in_p0(const lower_regions *r, uint32_t y);
/* The blocks of unit u of `units` whose values were not judged against a region inside the unit
 * (lower_divergence.c's second rule). */
const uint32_t *lower_regions_unit_unjudged(const lower_regions *r, uint32_t u, uint32_t *n);

/* rc_wave_divergence (lower_divergence.c), calling each(ctx, r, B) for every region it walks, while
 * r is current: lower makes its rejoin sets there, on the regions of the same primary successors
 * (those of the divergent branches), instead of walking them all again. */
typedef void (*lower_region_fn)(void *ctx, lower_regions *r, uint32_t B);
uint32_t lower_wave_divergence(const rc_kernel *k, const rc_cfg *g, const rc_domtree *pdom, rc_uniformity *u,
                               rc_u32vec *branches, lower_region_fn each, void *ctx);

#endif
