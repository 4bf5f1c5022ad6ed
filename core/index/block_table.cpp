// A paged KV cache's block table (`[batch, MAXP]`, i32): sequence b's token i lies in page
// table[b, i / page], slot i % page. Pages are distinct, drawn at random from a pool of `pages`
// and never contiguous (a kernel that reads page p + 1 after page p reads another sequence's);
// the entries past a sequence's last page hold -1, which is no page, so that a kernel that
// follows them reads outside the cache.
#include "core/index/draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

constexpr std::int64_t kNoPage = -1;

struct Layout {
  std::int64_t rows, width, page, pages;
  std::vector<std::int64_t> lengths;
};

Layout layout(const IndexCall& call) {
  Layout l{call.extents.at(0), call.extents.at(1), call.param("page"), call.param("pages"), {}};
  const HostTensor& lens = call.input("lengths");
  if (static_cast<std::int64_t>(lens.count) != l.rows)
    throw InputError("block_table: its lengths hold " + std::to_string(lens.count) + " values for " + std::to_string(l.rows) +
                     " rows");
  if (l.page < 1) throw InputError("block_table: page must be at least 1, it is " + std::to_string(l.page));
  for (std::size_t b = 0; b < lens.count; ++b) {
    const auto len = static_cast<std::int64_t>(lens.at(b));
    if (len < 0 || len > l.width * l.page)
      throw InputError("block_table: a length of " + std::to_string(len) + " does not fit " + std::to_string(l.width) +
                       " pages of " + std::to_string(l.page));
    l.lengths.push_back(len);
  }
  return l;
}

void generate(const IndexCall& call, HostTensor& out) {
  const Layout l = layout(call);
  std::int64_t needed = 0;
  for (auto len : l.lengths) needed += (len + l.page - 1) / l.page;
  if (needed > l.pages)
    throw InputError("block_table: the sequences need " + std::to_string(needed) + " pages, the pool has " + std::to_string(l.pages));
  for (std::size_t i = 0; i < out.count; ++i) out.set(i, kNoPage);

  std::vector<std::int64_t> pool;
  if (call.mode == "reverse") {
    // Every page one below the one before: right only for a kernel that follows the table.
    for (std::int64_t p = l.pages - 1; p >= 0; --p) pool.push_back(p);
  } else {
    pool = index_draws::permutation(l.pages, call);
  }
  std::size_t next = 0;
  for (std::int64_t b = 0; b < l.rows; ++b) {
    std::int64_t prev = -2;
    for (std::int64_t j = 0; j < (l.lengths[b] + l.page - 1) / l.page; ++j) {
      if (call.mode != "reverse") {
        // Swap in a later page of the pool when this one would follow the previous page.
        for (std::size_t k = next; k < pool.size() && pool[next] == prev + 1; ++k)
          if (pool[k] != prev + 1) std::swap(pool[next], pool[k]);
      }
      prev = pool[next++];
      out.set(static_cast<std::size_t>(b * l.width + j), static_cast<double>(prev));
    }
  }
}

// The pool's tokens the sequences hold: page * page_size + slot.
void items(const IndexCall& call, const HostTensor& table, std::vector<std::int64_t>& out) {
  const Layout l = layout(call);
  for (std::int64_t b = 0; b < l.rows; ++b)
    for (std::int64_t i = 0; i < l.lengths[b]; ++i)
      out.push_back(static_cast<std::int64_t>(table.at(static_cast<std::size_t>(b * l.width + i / l.page))) * l.page + i % l.page);
}

}  // namespace

extern const IndexGenerator kBlockTableGenerator{
    .kind = "block_table",
    .summary = "[batch, MAXP] page ids of each sequence (`lengths` names its seq_lens argument): distinct, random, never "
               "contiguous, from a pool of `pages` pages of `page` tokens; -1 past a sequence's last page. Addresses the "
               "pool's tokens: item = page id * page + slot",
    .rank = 2,
    .params = {{"lengths", true, ""}, {"page", false, ""}, {"pages", false, ""}},
    .modes = {"reverse"},
    .generate = generate,
    .items = items,
};

}  // namespace hone
