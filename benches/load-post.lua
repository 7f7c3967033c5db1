-- wrk script of benches/load-test.sh: POST /v1/retrieve with a rotating set of task texts.
local queries = {
  "extract the tables from a scanned PDF invoice into an Excel spreadsheet",
  "reproject a GeoJSON file of districts to web mercator and draw a choropleth map",
  "transcribe the speech in an mp4 video and write Spanish subtitles",
  "align protein sequences from a FASTA file and build a phylogenetic tree",
  "clean a messy CSV export and plot monthly totals",
  "deploy a containerized web service to a Kubernetes cluster",
  "write a code review for a pull request that adds a database migration",
  "detect transiting exoplanets in a light curve",
}
local bodies = {}
for i, q in ipairs(queries) do
  bodies[i] = '{"query": "' .. q .. '"}'
end
local n = 0
request = function()
  n = n + 1
  local body = bodies[(n % #bodies) + 1]
  return wrk.format("POST", "/v1/retrieve", { ["Content-Type"] = "application/json" }, body)
end
