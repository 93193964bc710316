"""Superset's configuration on the deployment platform (platform/images/superset).

Everything secret comes from the environment, which ECS fills from the deployment's secrets
(the task definition's `secrets`): nothing secret is in the image or in a layer.
"""

import os


def _required(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError(f"{name} is not set: the task definition must pass it from the deployment's secret")
    return value


# The metadata database: the deployment's own role and database on the shared Aurora cluster,
# e.g. postgresql+psycopg2://d_<hex>:<password>@<host>:5432/d_<hex>
SQLALCHEMY_DATABASE_URI = _required("SUPERSET_DATABASE_URI")
# Encrypts the database passwords Superset stores: never rotated casually.
SECRET_KEY = _required("SUPERSET_SECRET_KEY")

# The metadata cluster is shared: keep each deployment's pool small.
SQLALCHEMY_ENGINE_OPTIONS = {"pool_size": 5, "max_overflow": 5, "pool_pre_ping": True}

# Behind the ALB, which terminates TLS: trust its X-Forwarded-* headers.
ENABLE_PROXY_FIX = True
PREFERRED_URL_SCHEME = "https"
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_SAMESITE = "Lax"

# Examples stay out of customers' deployments.
SUPERSET_LOAD_EXAMPLES = False
