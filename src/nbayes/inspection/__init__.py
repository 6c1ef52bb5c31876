"""Looking into fitted models: the worked computation of a posterior
(:mod:`~nbayes.inspection.explain`), informative features and nomograms
(:mod:`~nbayes.inspection.nomogram`), independence diagnostics
(:mod:`~nbayes.inspection.diagnostics`) and cross-validation
(:mod:`~nbayes.inspection.evaluation`). Their figures and the HTML report are drawn
above, in :mod:`nbayes.plot`."""
