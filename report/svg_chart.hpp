#pragma once
// Small charts as inline SVG text, for the self-contained HTML report: no script, no external
// file, nothing fetched.
#include <string>
#include <utility>
#include <vector>

namespace hone {

struct ChartPoint {
  double x = 0, y = 0;
  std::string color;
  std::string title;   // tooltip
};

/// Points over x = 1..n with an optional running-best step line, failures marked on the x axis
/// and an optional dashed reference level.
struct LineChart {
  int width = 410, height = 250;
  std::string x_label, y_label;
  std::vector<ChartPoint> dots;
  std::vector<std::pair<double, double>> step_line;
  std::vector<ChartPoint> failures;   // only x is used
  double reference_y = 0;             // drawn when > 0
  std::string reference_label;
};

struct Bar {
  std::string label;
  double value = 0;
  std::string color;
  std::string text;    // printed after the bar
};

/// Horizontal bars from zero, one per row.
struct BarChart {
  int width = 410, bar_height = 22;
  std::vector<Bar> bars;
};

std::string svg_line_chart(const LineChart& chart);
std::string svg_bar_chart(const BarChart& chart);

/// Round tick values from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten.
std::vector<double> nice_ticks(double max, int about = 4);

}  // namespace hone
