import sys, cProfile, pstats
sys.path.insert(0,'scripts'); sys.path.insert(0,'.')
import bench_eval as be, bench_retrieval as br
from pathlib import Path
from graphrag_ui.services.sweep import run_sweep
from graphrag_ui.retrieval.registry import get_mode
mode=sys.argv[1]; param=sys.argv[2]
index,_=br.synthetic_index(10000, Path('/tmp/bench_retrieval'))
qs=be.questions_of(index,3)
q=qs.questions[0]
vals=list(range(5,85,5))
kw = {}
print(q)
def go():
    for _ in range(20):
        run_sweep(index, mode, q.question, {}, param, vals, hl=q.hl_keywords, ll=q.ll_keywords)
go()
cProfile.run('go()','/tmp/p.out')
pstats.Stats('/tmp/p.out').sort_stats('cumulative').print_stats(45)
