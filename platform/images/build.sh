#!/usr/bin/env bash
# Builds and pushes the platform's derived images (decision 285): one tag per supported app_version,
# the tag being the app_version exactly, to the repositories of the stage's platform stack.
#
#   platform/images/build.sh <stage> [airflow|superset|all]
#
# Needs: Docker with buildx (the tasks run on linux/arm64), the AWS CLI with credentials for the
# platform's account and region, and node (the versions come from APP_VERSIONS, or the service's
# defaults in contract/config-variables.ts). The repositories' tags are immutable: a version
# already pushed is skipped; to replace it (a patched base image), delete its tag first
# (`aws ecr batch-delete-image`) and run this again, then update or restart the deployments on it.
set -euo pipefail
stage="${1:?usage: build.sh <stage> [airflow|superset|all]}"
only="${2:-all}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
stack="DeploymentPlatform-${stage}"

output() {
  aws cloudformation describe-stacks --stack-name "$stack" \
    --query "Stacks[0].Outputs[?OutputKey=='$1'].OutputValue" --output text
}
versions() {
  (cd "$root" && npx tsx -e "
    import { DEFAULT_APP_VERSIONS } from './contract/config-variables.ts';
    const v = process.env.APP_VERSIONS ? JSON.parse(process.env.APP_VERSIONS) : DEFAULT_APP_VERSIONS;
    console.log((v['$1'] ?? []).join(' '));
  ")
}

for app in airflow superset; do
  [ "$only" = all ] || [ "$only" = "$app" ] || continue
  key="$(tr '[:lower:]' '[:upper:]' <<<"${app:0:1}")${app:1}RepositoryUri"
  repo="$(output "$key")"
  [ -n "$repo" ] || { echo "no $key output on $stack: deploy it with -c platform=ecs first" >&2; exit 1; }
  aws ecr get-login-password | docker login --username AWS --password-stdin "${repo%%/*}"
  arg="$(tr '[:lower:]' '[:upper:]' <<<"$app")_VERSION"
  for version in $(versions "$app"); do
    if aws ecr describe-images --repository-name "${repo#*/}" --image-ids "imageTag=$version" >/dev/null 2>&1; then
      echo "$app $version: already in $repo, skipped"
      continue
    fi
    echo "$app $version: building"
    docker buildx build --platform linux/arm64 --build-arg "$arg=$version" \
      --tag "$repo:$version" --push "$here/$app"
  done
done
