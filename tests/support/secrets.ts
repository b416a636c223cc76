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
];

/** The form as it appears in traffic (without the marks around the secret). */
export const plain = (form: string) => form.replace(/[⟨⟩]/g, "");
