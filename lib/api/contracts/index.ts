// Every contract, so that importing this module declares the whole API (for the OpenAPI document).
import "./meta";
import "./ingest";
import "./interruptions";
import "./sessions";
import "./tokens";
import "./users";
import "./webhooks";
import "./forwarders";
import "./import";
import "./otlp";
import "./sources";
import "./snoozes";
import "./spend";
import "./views";
