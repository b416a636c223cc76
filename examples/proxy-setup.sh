#!/usr/bin/env bash
# Record an agent's LLM calls with no code change: run the proxy beside it and point the
# agent's base URL at it. The provider key stays with the agent and goes only upstream.
set -euo pipefail
: "${SIGHTDESK_URL:=http://localhost:3000}"            # your SightDesk server
: "${SIGHTDESK_TOKEN:?a token with the ingest scope (Connect an agent, or sightdesk token create)}"

npx sightdesk proxy --url "$SIGHTDESK_URL" --token "$SIGHTDESK_TOKEN" --agent-name my-agent &
trap 'kill $!' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/8788) 2>/dev/null && break; sleep 0.1; done   # listening
export OPENAI_BASE_URL=http://127.0.0.1:8788/openai/v1       # OpenAI-compatible SDKs
export ANTHROPIC_BASE_URL=http://127.0.0.1:8788/anthropic    # Anthropic SDKs
"$@"                                                         # e.g. ./proxy-setup.sh node my-agent.js
