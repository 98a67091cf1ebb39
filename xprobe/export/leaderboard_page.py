"""The leaderboard's page: one HTML file, its data
(:func:`~xprobe.export.leaderboard.leaderboard_data`) embedded as JSON, its styles and script
inline; nothing to fetch, no server.

Every name from the data (models, languages, tasks, n/a reasons) reaches the page as text
(``textContent``), never as markup; the JSON is embedded with ``<``, ``>`` and ``&`` escaped, so
no string in it can close the script element. ``window.xprobeBoard`` exposes ``filter`` and
``sort`` for tests; ``<body data-rows data-cols data-fits>`` say what is shown.
"""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["render"]

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222;max-width:100%}
h1{font-size:20px;margin:0 0 4px}
p.lead{margin:0 0 10px;color:#444}
fieldset{display:inline-block;vertical-align:top;border:1px solid #ccc;margin:0 8px 8px 0;
  padding:4px 8px;max-width:1300px}
legend{font-weight:600}
label{margin-right:8px;white-space:nowrap}
select{max-width:260px}
.box{overflow-x:auto;max-width:100%;border:1px solid #ddd}
table{border-collapse:collapse;font-size:12px}
th,td{border:1px solid #e3e3e3;padding:2px 5px;text-align:right;white-space:nowrap}
th{background:#f4f4f4;cursor:pointer;position:sticky;top:0}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td.name,th.name{text-align:left;position:sticky;left:0;background:#fff}
th.name{background:#f4f4f4;z-index:2}
td.na{color:#999;background:#fafafa}
td.ci{color:#777;font-size:10px}
small{color:#777}
ul.reasons{font-size:12px;color:#555;columns:2}
"""

_SCRIPT = r"""
(function(){
"use strict";
var D=JSON.parse(document.getElementById("board-data").textContent);
var R=D.resamples;
function unpack(s){var b=atob(s),v=new Float64Array(b.length/2);
  for(var i=0;i<v.length;i++){v[i]=(b.charCodeAt(2*i)|(b.charCodeAt(2*i+1)<<8))/1000;}return v;}
var cell={};D.cells.forEach(function(c){cell[c.m+"\u0000"+c.l+"\u0000"+c.t]=c;});
function get(m,l,t){return cell[m+"\u0000"+l+"\u0000"+t];}
var state={languages:null,tasks:null,layer:"all",kinds:null,sort:{col:"rank",dir:1}};
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)
  e.textContent=String(text);if(cls)e.className=cls;return e;}
function pct(v){return (100*v).toFixed(1);}
function models(){return D.models.filter(function(m){
  if(state.kinds&&state.kinds.indexOf(m.kind)<0)return false;
  if(state.layer==="all")return true;
  if(state.layer==="none")return m.layer===null;
  return m.layer!==null&&String(m.layer)===state.layer;});}
function columns(ms){var out=[];D.languages.forEach(function(l){
  if(state.languages&&state.languages.indexOf(l)<0)return;
  D.tasks.forEach(function(t){if(state.tasks&&state.tasks.indexOf(t)<0)return;
    if(ms.some(function(m){return get(m.name,l,t);}))out.push([l,t]);});});return out;}
function ranks(ms,cols){
  var common=cols.filter(function(c){return ms.every(function(m){
    var x=get(m.name,c[0],c[1]);return x&&x.v!==undefined;});});
  var res={};ms.forEach(function(m){res[m.name]={mean:null,rank:null,stab:null};});
  if(!common.length||!ms.length)return {res:res,common:0};
  var reps={};ms.forEach(function(m){var acc=new Float64Array(R),mean=0;
    common.forEach(function(c){var x=get(m.name,c[0],c[1]);mean+=x.v;
      if(!x._r)x._r=unpack(x.r);for(var b=0;b<R;b++)acc[b]+=x._r[b];});
    res[m.name].mean=mean/common.length;reps[m.name]=acc;});
  function rankOf(score){var r={};ms.forEach(function(m){var k=1;ms.forEach(function(o){
    if(score(o)>score(m)+1e-12)k++;});r[m.name]=k;});return r;}
  var obs=rankOf(function(m){return res[m.name].mean;});
  var hold={};ms.forEach(function(m){hold[m.name]=0;});
  for(var b=0;b<R;b++){var rb=rankOf(function(m){return reps[m.name][b]/common.length;});
    ms.forEach(function(m){if(rb[m.name]===obs[m.name])hold[m.name]++;});}
  ms.forEach(function(m){res[m.name].rank=obs[m.name];res[m.name].stab=hold[m.name]/R;});
  return {res:res,common:common.length};}
function sortKey(row,col){if(col==="rank")return row.rank===null?Infinity:row.rank;
  if(col==="model")return row.m.name;if(col==="kind")return row.m.kind;
  if(col==="layer")return row.m.layer===null?-1:row.m.layer;
  if(col==="mean")return row.mean===null?-Infinity:-row.mean;
  if(col==="stability")return row.stab===null?Infinity:-row.stab;
  var x=row.cells[col];return x&&x.v!==undefined?-x.v:Infinity;}
function render(){
  var ms=models(),cols=columns(ms),rk=ranks(ms,cols);
  var rows=ms.map(function(m){var r=rk.res[m.name];return {m:m,mean:r.mean,rank:r.rank,
    stab:r.stab,cells:cols.map(function(c){return get(m.name,c[0],c[1]);})};});
  var col=state.sort.col,dir=state.sort.dir;
  rows.sort(function(a,b){var x=sortKey(a,col),y=sortKey(b,col);
    var inf=(x===Infinity||x===-Infinity),jnf=(y===Infinity||y===-Infinity);
    if(inf!==jnf)return inf?1:-1;
    if(x<y)return -dir;if(x>y)return dir;return a.m.name<b.m.name?-1:1;});
  var t=el("table"),head=el("thead"),hr=el("tr");
  var fixed=[["rank","rank"],["stability","stable"],["model","model"],["kind","kind"],
    ["layer","layer"],["mean","mean"]];
  fixed.forEach(function(f){var th=el("th",f[1],f[0]==="model"?"name":"");th.dataset.col=f[0];
    hr.appendChild(th);});
  cols.forEach(function(c,i){var th=el("th",c[0]+" "+c[1]);th.dataset.col=String(i);
    th.title=c[1]+" in "+c[0];hr.appendChild(th);});
  Array.prototype.forEach.call(hr.cells,function(th){
    if(th.dataset.col===String(col))th.className+=(dir>0?" sorted-asc":" sorted-desc");
    th.addEventListener("click",function(){var c=th.dataset.col;c=isNaN(+c)?c:+c;
      sort(c);});});
  head.appendChild(hr);t.appendChild(head);var body=el("tbody");
  var reasons={};
  rows.forEach(function(r){var tr=el("tr");
    tr.appendChild(el("td",r.rank===null?"\u2013":r.rank));
    var st=el("td",r.stab===null?"\u2013":Math.round(100*r.stab)+"%");
    st.title="how often this rank holds over "+R+" resamples of every shown cell's items";
    tr.appendChild(st);tr.appendChild(el("td",r.m.name,"name"));
    tr.appendChild(el("td",r.m.kind));tr.appendChild(el("td",r.m.layer===null?"":r.m.layer));
    var mean=el("td",r.mean===null?"\u2013":pct(r.mean));
    mean.title=r.mean===null?"not scored on every shown cell":"mean over "+rk.common+" cells";
    tr.appendChild(mean);
    r.cells.forEach(function(x,i){var td;
      if(!x){td=el("td","");td.title="not run";}
      else if(x.na!==undefined){var kind=x.na.split(":")[0];td=el("td","n/a ("+kind+")","na");
        td.title=x.na;reasons[cols[i][0]+" "+cols[i][1]]=x.na;}
      else{td=el("td",pct(x.v));if(x.lo!==undefined){td.appendChild(el("small",
        " "+pct(x.lo)+"\u2013"+pct(x.hi)));td.title="95% interval "+pct(x.lo)+"\u2013"+
        pct(x.hi)+", "+x.n+" items";}else td.title="no interval ("+x.src+
        " results give no items)";}
      tr.appendChild(td);});
    body.appendChild(tr);});
  t.appendChild(body);var box=document.getElementById("board");box.textContent="";
  box.appendChild(t);
  var ul=document.getElementById("reasons");ul.textContent="";
  Object.keys(reasons).sort().forEach(function(k){var li=el("li");li.appendChild(el("b",k));
    li.appendChild(document.createTextNode(": "+reasons[k]));ul.appendChild(li);});
  document.getElementById("shown").textContent=ms.length+" models, "+cols.length+
    " cells shown; ranks over the "+rk.common+" cells every shown model has";
  document.body.dataset.rows=rows.map(function(r){return r.m.name;}).join("|");
  document.body.dataset.cols=String(cols.length);
  document.body.dataset.fits=String(document.documentElement.scrollWidth<=
    window.innerWidth);}
function sort(col){if(state.sort.col===col)state.sort.dir=-state.sort.dir;
  else state.sort={col:col,dir:1};render();}
function picked(sel){var v=Array.prototype.filter.call(sel.options,function(o){
  return o.selected;}).map(function(o){return o.value;});return v.length?v:null;}
function controls(){
  function multi(id,values){var s=document.getElementById(id);values.forEach(function(v){
    var o=el("option",v);o.value=v;s.appendChild(o);});
    s.addEventListener("change",function(){state[id]=picked(s);render();});}
  multi("languages",D.languages);multi("tasks",D.tasks);
  var layer=document.getElementById("layer");var layers={};D.models.forEach(function(m){
    if(m.layer!==null)layers[m.layer]=1;});
  Object.keys(layers).map(Number).sort(function(a,b){return a-b;}).forEach(function(x){
    var o=el("option","layer "+x);o.value=String(x);layer.appendChild(o);});
  layer.addEventListener("change",function(){state.layer=layer.value;render();});
  var kinds=document.getElementById("kinds"),all={};
  D.models.forEach(function(m){all[m.kind]=1;});
  Object.keys(all).sort().forEach(function(k){var lab=el("label"),cb=el("input");
    cb.type="checkbox";cb.checked=true;cb.value=k;lab.appendChild(cb);
    lab.appendChild(document.createTextNode(" "+k));kinds.appendChild(lab);
    cb.addEventListener("change",function(){var on=Array.prototype.filter.call(
      kinds.querySelectorAll("input"),function(i){return i.checked;}).map(function(i){
      return i.value;});state.kinds=on;render();});});}
window.xprobeBoard={filter:function(f){Object.keys(f).forEach(function(k){state[k]=f[k];});
  render();},sort:sort,state:state};
controls();render();document.body.dataset.ready="1";
})();
"""


def _json(data: Any) -> str:
    """The data as JSON that no string in it can end the script element with."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render(data: dict[str, Any], title: str) -> str:
    """The page's HTML."""
    t = html.escape(title)
    n = len(data["cells"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{t}</title><style>{_STYLE}</style></head>
<body>
<h1>{t}</h1>
<p class="lead">{len(data["models"])} models, {len(data["languages"])} languages,
{len(data["tasks"])} tasks, {n} results. Test accuracy in percent with its 95 % interval
(small); n/a: the task does not apply there (hover for the reason, all listed below). Click a
heading to sort; rank: on the mean over the cells every shown model has; stable: how often that
rank holds when every shown cell's items are resampled ({data["resamples"]} times).</p>
<form onsubmit="return false">
<fieldset><legend>languages</legend><select id="languages" multiple size="5"></select></fieldset>
<fieldset><legend>tasks</legend><select id="tasks" multiple size="5"></select></fieldset>
<fieldset><legend>layer</legend><select id="layer"><option value="all">all</option>
<option value="none">no layer</option></select></fieldset>
<fieldset><legend>model kind</legend><span id="kinds"></span></fieldset>
</form>
<p id="shown"></p>
<div class="box" id="board"></div>
<h2>Why a cell is n/a</h2><ul class="reasons" id="reasons"></ul>
<script type="application/json" id="board-data">{_json(data)}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
