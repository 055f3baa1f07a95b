"""The few pieces of scikit-learn's estimator API that KMeans uses, for machines without it.

With scikit-learn installed, kmeans_studio takes its real base classes instead (and passes
``sklearn.utils.estimator_checks.check_estimator``).
"""
import inspect
import numbers

import numpy as np


class BaseEstimator:
    """get_params / set_params over the constructor's keyword arguments."""

    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return sorted(p.name for p in signature.parameters.values() if p.name != "self")

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self!r}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class ClusterMixin:
    def fit_predict(self, X, y=None, **kwargs):
        return self.fit(X, **kwargs).labels_


class TransformerMixin:
    def fit_transform(self, X, y=None, **kwargs):
        return self.fit(X, **kwargs).transform(X)


def check_random_state(seed):
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, numbers.Integral):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")


def check_is_fitted(estimator):
    if not hasattr(estimator, "cluster_centers_"):
        raise AttributeError(f"This {type(estimator).__name__} instance is not fitted yet; call fit first.")


def _validate_data(estimator, X, reset=True, dtype=None, order="C"):
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D array, got {X.ndim}-D; reshape your data.")
    if X.dtype.kind not in "fiu":
        raise ValueError(f"Expected numbers, got an array of {X.dtype}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"Found an array with shape {X.shape}: at least one sample and one feature are required.")
    if not np.isfinite(X).all():
        raise ValueError("Input contains NaN or infinity.")
    if reset:
        estimator.n_features_in_ = X.shape[1]
    elif X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
                         f"{estimator.n_features_in_} features as input.")
    return X


def _check_sample_weight(sample_weight, X, dtype=None):
    w = np.asarray(sample_weight, dtype=dtype)
    if w.ndim == 0:
        w = np.full(X.shape[0], w, dtype=dtype)
    if w.shape != (X.shape[0],):
        raise ValueError(f"sample_weight.shape == {w.shape}, expected ({X.shape[0]},)!")
    return w
