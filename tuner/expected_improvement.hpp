#pragma once
// Where the cost model is unsure. Several fits of the model, each on its own sample of the rows,
// agree where the data is dense and disagree where it is thin; their mean and spread per point
// give the expected improvement of efficient global optimisation (Jones, Schonlau and Welch):
// how far below the best time so far a point is expected to land, counting only the part of its
// spread that lands below. A point predicted as good as points already measured next to it, where
// every fit agrees, expects almost nothing; an unmeasured region predicted a little worse, where
// the fits disagree, expects more. Values are log times: lower is faster.
#include <vector>

namespace hone {

struct PointPrediction {
  double mean = 0;
  double spread = 0;  // the standard deviation over the fits
};

/// Point by point, the mean and spread of several fits' predictions (`fits[k][i]`: fit k's
/// prediction for point i); every fit predicts the same points.
std::vector<PointPrediction> combine_fits(const std::vector<std::vector<float>>& fits);

/// The expected amount by which the point's log time falls below `best`, taking its prediction
/// as normal with that mean and spread; with no spread, how far the mean is below best (or 0).
double expected_improvement(const PointPrediction& p, double best);

}  // namespace hone
