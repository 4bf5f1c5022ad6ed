#include "core/index_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "core/input_error.hpp"

namespace hone {

namespace {

std::map<std::string, std::int64_t> eval_params(const OpSpec& op, const ArgSpec& arg, const Bindings& shape) {
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, e] : arg.index->params) {
    try {
      out[name] = e.eval(shape);
    } catch (const ExprError& err) {
      throw InputError(op.name + ": '" + arg.name + "' init." + name + " ('" + e.text() + "'): " + err.what());
    }
  }
  return out;
}

IndexCall make_call(const OpSpec& op, const ArgSpec& arg, const Bindings& shape, const std::vector<HostTensor>& host) {
  IndexCall call;
  for (const auto& d : arg.dims) call.extents.push_back(d.eval(shape));
  call.params = eval_params(op, arg, shape);
  for (const auto& [param, input] : arg.index->inputs) call.inputs[param] = &host.at(op.arg_index(input));
  return call;
}

const IndexGenerator& generator_of(const ArgSpec& arg) {
  const IndexGenerator* g = find_index_generator(arg.index->kind);
  if (!g) throw InputError("'" + arg.name + "' names no index generator '" + arg.index->kind + "'");
  return *g;
}

// A block of the pattern, then copies of what is filled so far: a gigabyte of unchosen expert
// weights is poisoned at the speed of memcpy, not of a store per element.
template <class T>
void fill_as(HostTensor& t, std::size_t begin, std::size_t end, T pattern) {
  T* const p = reinterpret_cast<T*>(t.bytes.data()) + begin;
  const std::size_t n = end - begin;
  std::size_t done = std::min<std::size_t>(n, 4096);
  std::fill(p, p + done, pattern);
  while (done < n) {
    const std::size_t more = std::min(done, n - done);
    std::memcpy(p + done, p, more * sizeof(T));
    done += more;
  }
}

// The poison of generate_addressed: a quiet NaN of the dtype, or 0x7f bytes for integers.
void fill_poison(HostTensor& t, std::size_t begin, std::size_t end) {
  switch (t.dtype) {
    case DType::bf16: fill_as<std::uint16_t>(t, begin, end, 0x7fc0); break;
    case DType::f16: fill_as<std::uint16_t>(t, begin, end, 0x7e00); break;
    case DType::f32: fill_as<std::uint32_t>(t, begin, end, 0x7fc00000u); break;
    case DType::f64: fill_as<std::uint64_t>(t, begin, end, 0x7ff8000000000000ull); break;
    default: {
      const std::size_t size = dtype_size(t.dtype);
      std::memset(t.bytes.data() + begin * size, 0x7f, (end - begin) * size);
    }
  }
}

}  // namespace

std::vector<std::size_t> index_draw_order(const std::vector<ArgSpec>& args, const std::string& file) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < args.size(); ++i) position[args[i].name] = i;
  std::vector<std::size_t> order;
  std::vector<int> state(args.size(), 0);  // 0 unvisited, 1 being drawn, 2 placed
  std::function<void(std::size_t)> visit = [&](std::size_t i) {
    if (state[i] == 2) return;
    if (state[i] == 1) throw input_error(file, "the index inputs of '" + args[i].name + "' depend on each other in a cycle");
    state[i] = 1;
    for (const auto& [param, input] : args[i].index->inputs) {
      auto it = position.find(input);
      if (it == position.end() || !args[it->second].index)
        throw input_error(file, "'" + args[i].name + "' init." + param + " names '" + input + "', which is not an index input");
      visit(it->second);
    }
    state[i] = 2;
    order.push_back(i);
  };
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].index) visit(i);
  return order;
}

void draw_index_inputs(const OpSpec& op, const Bindings& shape, std::uint64_t seed, const IndexModes& modes,
                       const std::vector<HostTensor>* previous, std::vector<HostTensor>& out) {
  for (std::size_t i : op.index_order) {
    const ArgSpec& a = op.args[i];
    IndexCall call = make_call(op, a, shape, out);
    auto mode = modes.find(a.name);
    if (mode != modes.end()) call.mode = mode->second;
    if (previous) call.previous = &previous->at(i);
    Rng rng(seed * 1000003u + i);
    call.rng = &rng;
    out[i] = HostTensor(a.dtype, static_cast<std::size_t>(a.elements(shape)));
    generator_of(a).generate(call, out[i]);
  }
}

std::vector<ElementRange> addressed_ranges(const OpSpec& op, const ArgSpec& arg, const Bindings& shape,
                                           const std::vector<HostTensor>& host) {
  const ArgSpec& index = op.args.at(op.arg_index(arg.addressed->index));
  const IndexCall call = make_call(op, index, shape, host);
  std::vector<std::int64_t> items;
  generator_of(index).items(call, host.at(op.arg_index(index.name)), items);
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());

  const std::int64_t total = arg.elements(shape);
  Bindings at = shape;
  const std::int64_t extent = arg.addressed->extent.eval(shape);
  std::vector<ElementRange> ranges;
  for (auto item : items) {
    at["item"] = item;
    const std::int64_t begin = arg.addressed->offset.empty() ? item * extent : arg.addressed->offset.eval(at);
    if (begin < 0 || extent < 0 || begin + extent > total)
      throw InputError(op.name + ": item " + std::to_string(item) + " of '" + index.name + "' addresses elements " +
                       std::to_string(begin) + ".." + std::to_string(begin + extent) + " of '" + arg.name + "', which has " +
                       std::to_string(total));
    ranges.push_back({begin, begin + extent});
  }
  std::sort(ranges.begin(), ranges.end(), [](const ElementRange& a, const ElementRange& b) { return a.begin < b.begin; });
  std::vector<ElementRange> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, r.end);
    else merged.push_back(r);
  }
  return merged;
}

HostTensor generate_addressed(DType dtype, std::size_t n, const InputDist& dist, Rng& rng, std::size_t rows,
                              const std::vector<ElementRange>& ranges, AddressedRest rest) {
  HostTensor t(dtype, n);
  if (rows == 0 || n % rows != 0) rows = 1;
  const std::vector<double> scale = row_scales(dist, rng, rows);
  if (rest == AddressedRest::poison) {
    fill_poison(t, 0, n);
  } else {
    // One block drawn at the front, then copied over the whole buffer; the ranges are drawn afresh below.
    const std::size_t block = std::min<std::size_t>(n, 4096), size = dtype_size(dtype);
    draw_spans(t, dist, rng, scale, {{0, block}});
    for (std::size_t at = block; at < n; at += block)
      std::memcpy(t.bytes.data() + at * size, t.bytes.data(), std::min(block, n - at) * size);
  }
  // The addressed elements of a long context's KV cache are billions: drawn on all cores.
  ElementSpans spans;
  spans.reserve(ranges.size());
  for (const auto& r : ranges) spans.emplace_back(static_cast<std::size_t>(r.begin), static_cast<std::size_t>(r.end));
  draw_spans(t, dist, rng, scale, spans);
  return t;
}

std::vector<std::pair<std::string, std::string>> adversarial_index_modes(const OpSpec& op, const Bindings& shape) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i : op.index_order) {
    const ArgSpec& a = op.args[i];
    const IndexGenerator& g = generator_of(a);
    const auto params = eval_params(op, a, shape);
    for (const auto& mode : g.modes)
      if (!g.offers || g.offers(mode, params)) out.emplace_back(a.name, mode);
  }
  return out;
}

}  // namespace hone
