export default function OverviewPage() {
  return <h1 className="text-lg font-semibold">Overview</h1>;
}
