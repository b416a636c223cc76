export default function Home() {
  return (
    <main>
      <h1>SightDesk</h1>
      <p>
        The interruption inbox for AI agents. The API is up; see <code>README.md</code> for ingest and read routes.
      </p>
    </main>
  );
}
