const fs=require("fs"); const dir=process.argv[2]; const out=process.argv[3];
const s=JSON.parse(fs.readFileSync(out,"utf8").split("\n").find(l=>l.startsWith('{"seed"')));
const acts={}; for (const [k,v] of Object.entries(s.counts)){const i=k.lastIndexOf(":");const a=k.slice(0,i),o=k.slice(i+1); (acts[a]=acts[a]||{})[o]=v;}
let ok=0; for (const [a,o] of Object.entries(acts)) if (a!=="fault") ok+=o.ok||0;
const f=acts.fault||{}; const faults=["kill","mempool","relay_down","relay_hang","reorg","signer","redis","pg"].reduce((n,k)=>n+(f[k]||0),0);
console.log(`seed ${s.seed} ${s.backend} ${s.instances}i violations=${s.violations} ok=${ok} faults=${faults} reorgs=${f.reorg||0} buys/list/bids=${acts.buy?.ok}/${acts.list?.ok}/${acts.bid?.ok}`);
if (s.first_violation) console.log("FIRST", JSON.stringify(s.first_violation));
for (const k of s.known_limitations) console.log("KNOWN", k.message.slice(0,300));
for (const [a,o] of Object.entries(acts)) console.log(" ", a, JSON.stringify(o));
const lines=fs.readFileSync(dir+"/history.jsonl","utf8").trim().split("\n").map(l=>JSON.parse(l));
const m={}; for (const e of lines) if (e.kind==="outcome" && !e.ok && e.detail && e.detail.code) { const k=e.action+" "+e.detail.code; m[k]=(m[k]||0)+1;}
console.log(Object.entries(m).sort().map(x=>"  "+x.join(": ")).join("\n"));
