// Credentials in the forms agents leak them in: tool output, shell environments, HTTP
// headers copied into text, JSON arguments. Shared by the unit and the end-to-end test of
// secret masking.

/** Every form a credential takes in agent traffic; the value after `⟨` … `⟩` must never be kept. */
export const SECRET_FORMS: Array<[form: string, secret: string]> = [
  ["api_key=⟨ak-plain-0001⟩", "ak-plain-0001"],
  ["password: ⟨hunter2-colon-0002⟩", "hunter2-colon-0002"],
  ["x-api-key: ⟨xk-header-0003⟩", "xk-header-0003"],
  ["Authorization: Basic ⟨dXNlcjpwYXNzd29yZDAwMDQ=⟩", "dXNlcjpwYXNzd29yZDAwMDQ="],
  ['{"api_key": "⟨json-key-0005⟩"}', "json-key-0005"],
  ['OPENAI_API_KEY="⟨quoted-0006⟩"', "quoted-0006"],
  ["Password = '⟨single quoted 0007⟩'", "single quoted 0007"],
  ["export GITHUB_TOKEN=⟨gh-export-0008⟩", "gh-export-0008"],
  ["client_secret:⟨cs-0009⟩", "cs-0009"],
  ["AWS_SECRET_ACCESS_KEY=⟨aws-0010⟩", "aws-0010"],
  ["X-Api-Key:\t⟨XK-UPPER-0011⟩", "XK-UPPER-0011"],
  ["proxy-authorization: Bearer ⟨pa0012pa0012⟩", "pa0012pa0012"],
  ["Authorization: ApiKey ⟨c2VjcmV0LTAwMTM=⟩", "c2VjcmV0LTAwMTM="],
  ["Authorization: Key ⟨fal-0014-secret⟩", "fal-0014-secret"],
  ["Ocp-Apim-Subscription-Key: ⟨apim-0015⟩", "apim-0015"],
  ["x-functions-key: ⟨fn-0016⟩", "fn-0016"],
  ["DATABASE_URL=postgres://app:⟨S3cret-0017⟩@db.internal:5432/app", "S3cret-0017"],
  ["redis://:⟨pw-0018⟩@cache:6379/0", "pw-0018"],
  ["X-Auth-Key: ⟨c2547eb745079dac9320b638f5e225cf⟩", "c2547eb745079dac9320b638f5e225cf"],
  ["SMTP_PASS=⟨smtp-pass-0019⟩", "smtp-pass-0019"],
  ["MYSQL_PWD=⟨mysql-pwd-0020⟩", "mysql-pwd-0020"],
  ["passphrase: ⟨pp-0021-words⟩", "pp-0021-words"],
  ["GET https://api.example.com/v1/models?key=⟨k-9f8e7d6c5b4a0022⟩ failed", "k-9f8e7d6c5b4a0022"],
  ["-----BEGIN OPENSSH PRIVATE KEY-----\n⟨b3BlbnNzaC1rZXktdjEAAAAA0023⟩\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAA0023"],
  ["curl -u admin:⟨S3cretPw0024⟩ https://x.example", "S3cretPw0024"],
  ["git clone https://⟨glpat-AbCdEfGhIjKlMnOp0025⟩@gitlab.com/g/r.git", "glpat-AbCdEfGhIjKlMnOp0025"],
  ["SENTRY_DSN=https://⟨abc123def456abc1230026⟩@o123.ingest.sentry.io/42", "abc123def456abc1230026"],
  ["invalid token bearer ⟨eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln0027⟩", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln0027"],
  ["HF_HUB=⟨hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567⟩ and gsk_⟨AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdef0028⟩", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdef0028"],
  ['DB_PASSWORD="ab\\"⟨cdTailSecret0029⟩"', "cdTailSecret0029"],
  ['{"password": "first\\\\⟨tailSecret0030⟩"}', "tailSecret0030"],
];

/** The form as it appears in traffic (without the marks around the secret). */
export const plain = (form: string) => form.replace(/[⟨⟩]/g, "");
