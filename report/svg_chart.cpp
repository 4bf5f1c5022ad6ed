#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/xml_escape.hpp"

namespace hone {

std::vector<double> nice_ticks(double max, int about) {
  if (!(max > 0)) max = 1;
  const double raw = max / about;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  for (int i = 0; ticks.empty() || ticks.back() < max - 1e-12 * max; ++i) ticks.push_back(i * step);
  return ticks;
}

std::string svg_line_chart(const LineChart& c) {
  const double left = 62, right = 14, top = 14, bottom = 44;
  const double pw = c.width - left - right, ph = c.height - top - bottom;
  double xmax = 1, ymax = c.reference_y;
  for (const auto& p : c.dots) xmax = std::max(xmax, p.x), ymax = std::max(ymax, p.y);
  for (const auto& p : c.failures) xmax = std::max(xmax, p.x);
  const auto yt = nice_ticks(ymax > 0 ? ymax * 1.05 : 1);
  const double ytop = yt.back();
  auto X = [&](double x) { return left + (xmax <= 1 ? pw / 2 : (x - 1) / (xmax - 1) * pw); };
  auto Y = [&](double y) { return top + ph - y / ytop * ph; };

  std::string s = fmt::format("<svg class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">", c.width, c.height,
                              c.width, c.height);
  for (double t : yt) {
    s += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", left, left + pw, Y(t), Y(t));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{:.3g}</text>", left - 6, Y(t) + 4, t);
  }
  const auto xt = nice_ticks(xmax, 5);
  for (double t : xt) {
    if (t < 1 || t > xmax || t != std::floor(t)) continue;  // evaluations are whole numbers
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">{:g}</text>", X(t), top + ph + 16, t);
  }
  if (xmax > 1 && std::find(xt.begin(), xt.end(), 1.0) == xt.end())
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">1</text>", X(1), top + ph + 16);
  s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"axis\"/>", left, left + pw, top + ph);
  s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" class=\"axis\"/>", left, top, top + ph);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>", left + pw / 2, c.height - 6,
                   xml_escape(c.x_label));
  s += fmt::format("<text transform=\"translate(14 {:.1f}) rotate(-90)\" class=\"label\" text-anchor=\"middle\">{}</text>",
                   top + ph / 2, xml_escape(c.y_label));
  if (c.reference_y > 0) {
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" class=\"reference\"/>", left, left + pw,
                     Y(c.reference_y));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>", left + pw - 2,
                     Y(c.reference_y) - 4, xml_escape(c.reference_label));
  }
  if (!c.step_line.empty()) {
    std::string d = fmt::format("M{:.1f},{:.1f}", X(c.step_line[0].first), Y(c.step_line[0].second));
    for (std::size_t i = 1; i < c.step_line.size(); ++i)
      d += fmt::format(" H{:.1f} V{:.1f}", X(c.step_line[i].first), Y(c.step_line[i].second));
    s += fmt::format("<path d=\"{}\" class=\"best\"/>", d);
  }
  for (const auto& p : c.dots)
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}</title></circle>", X(p.x), Y(p.y),
                     p.color, xml_escape(p.title));
  for (const auto& p : c.failures) {
    const double x = X(p.x), y = top + ph;
    s += fmt::format("<path d=\"M{:.1f},{:.1f} l7,7 m0,-7 l-7,7\" class=\"fail\"><title>{}</title></path>", x - 3.5, y - 3.5,
                     xml_escape(p.title));
  }
  return s + "</svg>";
}

std::string svg_bar_chart(const BarChart& c) {
  const double label_w = 110, text_w = 170, gap = 8;
  const double pw = c.width - label_w - text_w;
  const int height = static_cast<int>(c.bars.size()) * (c.bar_height + static_cast<int>(gap)) + 8;
  double vmax = 0;
  for (const auto& b : c.bars) vmax = std::max(vmax, b.value);
  if (vmax <= 0) vmax = 1;
  std::string s = fmt::format("<svg class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">", c.width, height,
                              c.width, height);
  double y = 4;
  for (const auto& b : c.bars) {
    const double w = b.value > 0 ? std::max(1.0, b.value / vmax * pw) : 0;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>", label_w - 6, y + c.bar_height * 0.68,
                     xml_escape(b.label));
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>", label_w, y, w,
                     c.bar_height, b.color, xml_escape(b.label + ": " + b.text));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>", label_w + w + 6, y + c.bar_height * 0.68, xml_escape(b.text));
    y += c.bar_height + gap;
  }
  return s + "</svg>";
}

}  // namespace hone
